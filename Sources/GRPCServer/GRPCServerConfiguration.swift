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
    /// Connections open at once from one client network (IPv4 /24, IPv6 /64); 0 = no
    /// per-network limit. When set, the last eighth of ``connectionLimit`` is also kept for
    /// networks holding only a few connections (`ConnectionSharing.SubnetAdmission`, the rule
    /// the HTTP listeners apply), so networks filled to their share never take every slot.
    public var perSubnetConnectionLimit = 128
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
    /// A connection on which no stream was answered for this long gets GOAWAY and is closed,
    /// whatever its peer sends meanwhile: control frames (PING, SETTINGS, WINDOW_UPDATE) and
    /// streams it opens and resets or leaves unfinished do not count, only calls answered
    /// (issue 38: a stream opened every few seconds held a connection for ever), and a call is
    /// answered when its response was sent whole (its END_STREAM frame written), not when it was
    /// queued: a peer that keeps its flow-control window shut takes no answer. Streams open
    /// at that moment may still finish within ``requestTimeoutSeconds``; no new one is taken.
    /// Also the send timeout towards a peer that does not read.
    public var idleTimeoutSeconds = 30
    /// A stream (headers and message) must arrive whole within this, and its response must be
    /// sent whole within this of being queued; else the stream is reset. The connection preface
    /// has this long from the accept too: a connection that sends nothing holds its slot of
    /// ``perAddressConnectionLimit`` no longer than a stalled request would.
    public var requestTimeoutSeconds = 10
    /// Streams of one connection reset for ``requestTimeoutSeconds`` before the connection
    /// itself is closed (GOAWAY `ENHANCE_YOUR_CALM`): a client whose requests keep stalling
    /// half-way, or that takes no responses, is not making calls, and its streams hold buffers
    /// until each deadline.
    public var maxTimedOutStreamsPerConnection = 4

    /// A configuration that binds `host:port` with the default bounds.
    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Takes a listener's connection limits (the daemon's `server` section: in total, per
    /// address, per network; 0 = no per-address or per-network limit) under the thread cap
    /// ``maxConnectionThreads``. A per-address or per-network limit that the cap leaves at or
    /// above the total is brought down to the share the HTTP listeners derive for a total of
    /// that size (a quarter per address, at most 256; half per network): one address or one
    /// network must never be able to take every slot.
    public mutating func shareConnections(total: Int, perAddress: Int, perSubnet: Int) {
        connectionLimit = max(1, min(total, Self.maxConnectionThreads))
        var subnet = perSubnet
        if subnet >= connectionLimit { subnet = max(1, connectionLimit / 2) }
        var address = perAddress == 0 ? connectionLimit : perAddress
        if perAddress != 0 && address >= connectionLimit { address = min(256, max(1, connectionLimit / 4)) }
        if subnet > 0 { address = min(address, subnet) }
        perAddressConnectionLimit = address
        perSubnetConnectionLimit = max(0, subnet)
    }
}
