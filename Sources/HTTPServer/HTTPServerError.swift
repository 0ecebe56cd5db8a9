/// Why ``HTTPServer/start()`` failed.
///
/// A struct over a private enum (as SwiftNIO does) so that new cases do not break callers.
public struct HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Base: Equatable, Sendable {
        case invalidAddress
        case addressInUse
        case addressNotAvailable
        case permissionDenied
        case socketFailure
        case daemonStartFailed
        case alreadyStarted
        case invalidConfiguration
    }

    private let base: Base
    /// What went wrong, with the values involved.
    public let detail: String

    private init(_ base: Base, _ detail: String) {
        self.base = base
        self.detail = detail
    }

    public var description: String { detail }

    public static func == (lhs: HTTPServerError, rhs: HTTPServerError) -> Bool { lhs.base == rhs.base }

    /// The host is not an IPv4/IPv6 literal (or "localhost").
    public static let invalidAddress = HTTPServerError(.invalidAddress, "invalid address")
    /// Another socket already listens on the address and port.
    public static let addressInUse = HTTPServerError(.addressInUse, "address in use")
    /// The address does not belong to this host.
    public static let addressNotAvailable = HTTPServerError(.addressNotAvailable, "address not available")
    /// The port needs privileges the process lacks.
    public static let permissionDenied = HTTPServerError(.permissionDenied, "permission denied")
    /// Creating or configuring the listen socket failed for another reason.
    public static let socketFailure = HTTPServerError(.socketFailure, "socket failure")
    /// libmicrohttpd refused to start (see the logged "mhd.message" events).
    public static let daemonStartFailed = HTTPServerError(.daemonStartFailed, "daemon start failed")
    /// ``HTTPServer/start()`` was called twice, or after shutdown.
    public static let alreadyStarted = HTTPServerError(.alreadyStarted, "already started")
    /// A configuration value is out of range.
    public static let invalidConfiguration = HTTPServerError(.invalidConfiguration, "invalid configuration")

    /// The same error kind with a specific explanation (public so that another listener's
    /// server, the gRPC one, reports its start failures as the daemon reports these).
    public func with(detail: String) -> HTTPServerError {
        HTTPServerError(base, detail)
    }
}
