import Glibc

/// Why a listen socket could not be opened or adopted: the system's reason, classified once
/// for every listener (each server words it in its own start error).
public struct SocketError: Error, Sendable {
    /// What went wrong, for a caller that reports each differently.
    public enum Kind: Sendable, Equatable {
        /// The port is taken (`EADDRINUSE`).
        case addressInUse
        /// The address is not one of this host's (`EADDRNOTAVAIL`).
        case addressNotAvailable
        /// A privileged port or a forbidden address (`EACCES`, `EPERM`).
        case permissionDenied
        /// An inherited descriptor that is not a listening IPv4/IPv6 TCP socket.
        case notAListeningSocket
        /// Any other failure of a system call.
        case systemError
    }

    /// The kind of failure.
    public let kind: Kind
    /// The `errno` of the failed call (0 for ``Kind/notAListeningSocket``).
    public let errorNumber: Int32

    /// A failure with `errorNumber`, classified.
    init(errorNumber: Int32) {
        self.errorNumber = errorNumber
        switch errorNumber {
        case EADDRINUSE: kind = .addressInUse
        case EADDRNOTAVAIL: kind = .addressNotAvailable
        case EACCES, EPERM: kind = .permissionDenied
        default: kind = .systemError
        }
    }

    /// An inherited descriptor that is valid but not a listening TCP socket.
    static let notAListeningSocket = SocketError(kind: .notAListeningSocket)

    private init(kind: Kind) {
        self.kind = kind
        self.errorNumber = 0
    }

    /// The system's reason ("Address already in use"), or "not a listening TCP socket".
    public var reason: String {
        kind == .notAListeningSocket ? "not a listening TCP socket" : String(cString: strerror(errorNumber))
    }
}
