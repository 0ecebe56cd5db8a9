internal import ConnectionSharing

#if canImport(Glibc)
    import Glibc
#endif

/// Listening address, concurrency and hardening limits of an ``HTTPServer``.
///
/// Every limit has a safe default; the defaults of ``maxTargetBytes`` and ``maxHeaderBytes``
/// sit well below ``connectionMemoryLimitBytes`` so that oversized requests are normally
/// answered by this module with `application/problem+json`. Only requests beyond the
/// libmicrohttpd memory limit get libmicrohttpd's own fixed HTML 414/431 answer.
public struct HTTPServerConfiguration: Sendable {
    /// IPv4 or IPv6 literal to bind ("127.0.0.1", "::1", "0.0.0.0", "::"); "localhost" means 127.0.0.1.
    public var host: String
    /// TCP port; 0 asks the kernel for a free port, which ``HTTPServer/start()`` returns.
    public var port: UInt16
    /// Worker threads, each running its own epoll loop. More threads than cores only add contention.
    public var threadPoolSize: Int
    /// Connections held at once (including idle keep-alive ones); further clients are refused.
    ///
    /// 4096 by default, so that one address at ``perIPConnectionLimit`` leaves most slots to
    /// everyone else; the server raises the process's file-descriptor soft limit to the
    /// hard limit when the soft one is too small for it.
    public var connectionLimit: Int
    /// Connections one client address may hold at once; 0 means unlimited.
    ///
    /// 256 by default: one address (a slowloris from one host) cannot take every slot, so
    /// health checks and other clients still get in. Behind a reverse proxy every client
    /// shares the proxy's address, so this is also the most connections the proxy may
    /// open; 256 concurrent requests is far above what a policy check needs, but raise it
    /// (or set 0) for a proxy that opens more, and limit per client at the proxy.
    /// When not 0 it must be below ``connectionLimit`` (``connectionSharingProblem``).
    public var perIPConnectionLimit: Int
    /// Connections one client network (an IPv4 /24, an IPv6 /64; IPv4-mapped IPv6 counts as
    /// IPv4) may hold at once; 0 means unlimited.
    ///
    /// 1024 by default: many addresses of one network (a host with a /64, neighbouring
    /// cloud addresses) share one budget, so filling ``connectionLimit`` takes several
    /// networks. When not 0 it must be below ``connectionLimit`` and not below
    /// ``perIPConnectionLimit``. Enforced by the accept policy, before a connection is set up.
    /// When not 0 it also keeps the last eighth of ``connectionLimit`` for networks holding
    /// fewer than 16 connections (a quarter of this limit if less), so networks filled to
    /// this limit cannot take the last slots from a probe or a light client.
    public var perSubnetConnectionLimit: Int
    /// Seconds a connection may stay idle before it is closed. Values below 1 are raised to
    /// 1 because libmicrohttpd treats 0 as "never". libmicrohttpd restarts this timer on
    /// every byte, so it does not bound slow clients: ``headTimeoutSeconds`` and
    /// ``minBodyBytesPerSecond`` do.
    public var connectionTimeoutSeconds: Int
    /// Seconds a client has to send a complete request head (request line and header
    /// fields), counted from the connection's accept; for a later request on a keep-alive
    /// connection, from the end of the previous response plus ``connectionTimeoutSeconds``
    /// (so idle keep-alive is governed by the idle timeout alone). Overdue connections are
    /// closed without an answer.
    public var headTimeoutSeconds: Int
    /// The slowest average rate a request body may arrive at, in bytes per second, once
    /// ``bodyRateGraceSeconds`` have passed since the head; slower connections are closed
    /// without an answer. 0 disables the check.
    public var minBodyBytesPerSecond: Int
    /// Seconds after the head during which a body is not held to ``minBodyBytesPerSecond``.
    public var bodyRateGraceSeconds: Int
    /// libmicrohttpd's per-connection memory pool (request line, headers, read buffer).
    ///
    /// 32 KiB holds the default target and header limits with room to spare (requests up
    /// to about 30 KB of headers still get this module's problem+json 414/431), and
    /// libmicrohttpd zeroes the whole pool after every request, so a larger pool costs
    /// throughput (64 KiB measured about 15% slower with keep-alive).
    public var connectionMemoryLimitBytes: Int
    /// Largest accepted request body; larger bodies get 413 and the connection is closed.
    public var maxBodyBytes: Int
    /// Body limits for exact request paths (the target without its query) that need a
    /// different limit than ``maxBodyBytes``, such as an upload endpoint taking larger forms.
    /// Keyed by path so the limit is known from the request line, before any body is read.
    public var bodyLimitsByPath: [String: Int]
    /// Longest accepted request target; longer ones get 414.
    public var maxTargetBytes: Int
    /// Largest accepted total of header lines (`name: value\r\n`); larger ones get 431.
    public var maxHeaderBytes: Int
    /// Prefix of every problem `type` URI; the problem kind is appended. The product using
    /// the server names its own (a URN such as `urn:example:problem:`): this module knows
    /// nothing about any product, so it has no default.
    public var problemTypePrefix: String
    /// An already bound, listening TCP socket to serve instead of binding ``host``:``port``
    /// (socket activation: systemd passes it as `LISTEN_FDS`). ``host`` and ``port`` then
    /// only label the listener in logs.
    ///
    /// The server does not own such a socket's listening state: whoever passed it keeps a
    /// copy, so on shutdown the server stops accepting from it but does not shut it down,
    /// and connections arriving meanwhile wait in its queue for the next process.
    public var inheritedListenSocket: Int32?
    /// Whether `CONNECT` requests reach the responder (a forward proxy that tunnels answers
    /// them with ``HTTPResponderResult/takeOver(_:)``). Off: they get 501
    /// `connect-not-supported` before the responder runs.
    public var acceptsConnect = false

    /// Creates a configuration; every parameter but `problemTypePrefix` has a production-safe
    /// default.
    public init(
        host: String = "127.0.0.1",
        port: UInt16 = 8080,
        threadPoolSize: Int = HTTPServerConfiguration.onlineProcessorCount,
        connectionLimit: Int = 4096,
        perIPConnectionLimit: Int = 256,
        perSubnetConnectionLimit: Int = 1024,
        connectionTimeoutSeconds: Int = 30,
        headTimeoutSeconds: Int = 10,
        minBodyBytesPerSecond: Int = 1024,
        bodyRateGraceSeconds: Int = 5,
        connectionMemoryLimitBytes: Int = 32 * 1024,
        maxBodyBytes: Int = 65_536,
        bodyLimitsByPath: [String: Int] = [:],
        maxTargetBytes: Int = 8_192,
        maxHeaderBytes: Int = 16_384,
        problemTypePrefix: String
    ) {
        self.host = host
        self.port = port
        self.threadPoolSize = threadPoolSize
        self.connectionLimit = connectionLimit
        self.perIPConnectionLimit = perIPConnectionLimit
        self.perSubnetConnectionLimit = perSubnetConnectionLimit
        self.connectionTimeoutSeconds = connectionTimeoutSeconds
        self.headTimeoutSeconds = headTimeoutSeconds
        self.minBodyBytesPerSecond = minBodyBytesPerSecond
        self.bodyRateGraceSeconds = bodyRateGraceSeconds
        self.connectionMemoryLimitBytes = connectionMemoryLimitBytes
        self.maxBodyBytes = maxBodyBytes
        self.bodyLimitsByPath = bodyLimitsByPath
        self.maxTargetBytes = maxTargetBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.problemTypePrefix = problemTypePrefix
        self.inheritedListenSocket = nil
    }

    /// Number of processors currently online (at least 1).
    public static var onlineProcessorCount: Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    /// Why these connection limits do not share ``connectionLimit`` fairly, or nil when they do.
    public var connectionSharingProblem: String? {
        Self.connectionSharingProblem(
            connectionLimit: connectionLimit, perIP: perIPConnectionLimit, perSubnet: perSubnetConnectionLimit)?.message
    }

    /// The one rule for the three connection limits (``ConnectionSharingRule/problem(connectionLimit:perIP:perSubnet:)``,
    /// pure, so config validation in a core-only build applies it too).
    public static func connectionSharingProblem(
        connectionLimit: Int, perIP: Int, perSubnet: Int
    ) -> (setting: String, message: String)? {
        ConnectionSharingRule.problem(connectionLimit: connectionLimit, perIP: perIP, perSubnet: perSubnet)
    }

    /// The host as an IP literal the socket layer understands ("localhost" → "127.0.0.1").
    var bindAddressLiteral: String {
        host.lowercased() == "localhost" ? "127.0.0.1" : host
    }
}
