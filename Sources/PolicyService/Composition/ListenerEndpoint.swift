/// Where one listener takes its socket from: an address to bind, or a socket systemd passed.
///
/// Resolved once, before anything starts (``DaemonConfiguration/resolve(_:)``); nothing
/// downstream parses an address string again.
public struct ListenerEndpoint: Sendable, Equatable {
    /// The address to bind. With an inherited socket it only labels the listener in logs and
    /// on the status page: the configured address, else the API listener's host and port 0.
    public var address: ListenAddress
    /// A listening socket systemd passed (`LISTEN_FDS`), served instead of binding ``address``.
    public var inheritedSocket: Int32?

    /// An endpoint that binds `address`, or serves `inheritedSocket` when one was passed.
    public init(address: ListenAddress, inheritedSocket: Int32? = nil) {
        self.address = address
        self.inheritedSocket = inheritedSocket
    }

    /// The address as bound: `port` is what the server reports once it listens (port 0 in the
    /// config becomes the real port).
    func bound(port: UInt16) -> ListenAddress {
        ListenAddress(host: address.host, port: port)
    }
}
