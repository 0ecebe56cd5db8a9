/// Where a ``GRPCServer`` listens and the bounds it keeps on every peer.
public struct GRPCServerConfiguration: Sendable {
    /// The address to bind (`127.0.0.1`, `::1`, `0.0.0.0`), unless ``inheritedListenSocket`` is set.
    public var host: String
    /// The port to bind; 0 picks a free one (``GRPCServer/start()`` returns it).
    public var port: UInt16
    /// A listening socket to serve instead of binding (systemd socket activation).
    public var inheritedListenSocket: Int32?
    /// Connections open at once, in total; one more is accepted and closed at once.
    public var connectionLimit = 256
    /// The most ``connectionLimit`` may usefully be: each connection has a thread.
    public static let maxConnectionThreads = 1024
    /// Connections open at once from one peer address.
    public var perAddressConnectionLimit = 64
    /// `SETTINGS_MAX_CONCURRENT_STREAMS`: streams a client may have open on one connection; a
    /// stream past it is refused by nghttp2 with `REFUSED_STREAM`.
    public var maxConcurrentStreams: UInt32 = 128
    /// `SETTINGS_MAX_HEADER_LIST_SIZE`, enforced too: a stream whose header block is larger is
    /// answered `RESOURCE_EXHAUSTED` without being read further.
    public var maxHeaderListBytes = 16_384
    /// The largest request message (after the 5-byte prefix); larger is `RESOURCE_EXHAUSTED`.
    public var maxMessageBytes = 65_536
    /// Request bytes one connection may hold for its open streams together; a DATA frame past it
    /// resets its stream (`ENHANCE_YOUR_CALM`). Without it, 128 streams each parked just under
    /// ``maxMessageBytes`` pinned 8 MiB per connection (outside attack of issue 30).
    public var maxBufferedBytesPerConnection = 2 << 20
    /// A connection with no open stream for this long gets GOAWAY and is closed, whatever
    /// control frames (PING, SETTINGS, WINDOW_UPDATE) its peer sends meanwhile; also the send
    /// timeout towards a peer that does not read.
    public var idleTimeoutSeconds = 30
    /// A stream (headers and message) must arrive whole within this; else it is reset. (The
    /// connection preface has ``idleTimeoutSeconds`` from the accept.)
    public var requestTimeoutSeconds = 10

    /// A configuration that binds `host:port` with the default bounds.
    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }
}
