import CCurl
import HTTPTypes

/// Forwards requests to origins with libcurl and streams the responses back.
///
/// All transfers run on one ``TransferLoop`` thread driving a libcurl multi handle, which
/// keeps a shared cache of keep-alive connections. ``start(_:onHead:)`` returns at once;
/// the head arrives later on the loop thread, with the body either complete (small
/// responses) or as an ``HTTPBodyStream`` that the HTTP server pulls while the origin is
/// still sending, never holding more than a bounded buffer per exchange.
public final class UpstreamClient: Sendable {
    /// Limits and name overrides for forwarding.
    public struct Configuration: Sendable {
        /// Time to establish the TCP (and TLS) connection.
        public var connectTimeoutMilliseconds: Int
        /// Longest silence from the origin: before the head (→ 504) and between body bytes
        /// (→ the body is cut). Time spent waiting for a slow client does not count.
        public var timeoutMilliseconds: Int
        /// Largest response body relayed, 0 = no limit. A larger declared length is 502; a
        /// body that grows past it is cut.
        public var maxResponseBytes: Int
        /// `HOST:PORT:ADDRESS` entries, as curl's `--resolve`.
        public var resolve: [String]
        /// Called on the transfer thread when a transfer leaves libcurl (done, failed or
        /// cancelled) with the body bytes sent to and received from the origin. Must not block.
        public var transferObserver: (@Sendable (_ sentBytes: Int, _ receivedBytes: Int) -> Void)?
        /// Which addresses transfers may connect to; nil = any (no check at all).
        public var destinationGuard: DestinationGuard?

        /// Creates a configuration.
        public init(
            connectTimeoutMilliseconds: Int = 5_000, timeoutMilliseconds: Int = 30_000, maxResponseBytes: Int = 0,
            resolve: [String] = [], transferObserver: (@Sendable (_ sentBytes: Int, _ receivedBytes: Int) -> Void)? = nil,
            destinationGuard: DestinationGuard? = nil
        ) {
            self.transferObserver = transferObserver
            self.destinationGuard = destinationGuard
            self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
            self.timeoutMilliseconds = timeoutMilliseconds
            self.maxResponseBytes = maxResponseBytes
            self.resolve = resolve
        }
    }

    /// The `Via` value this proxy adds to requests and responses (RFC 9110 §7.6.3).
    public static let via = "1.1 navpolicyd"

    private let loop: TransferLoop?

    /// Creates a client and starts its transfer thread.
    public init(configuration: Configuration) {
        _ = Self.globalInit
        loop = TransferLoop(configuration: configuration)
    }

    deinit {
        loop?.stop(wait: false)
    }

    private static let globalInit: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// Starts forwarding `request`; `onHead` is called exactly once, on the transfer
    /// thread, with the response head or the reason there is none. It must not block.
    public func start(_ request: UpstreamRequest, onHead: @escaping @Sendable (UpstreamOutcome) -> Void) {
        guard let loop else {
            onHead(.failed("libcurl could not start its transfer loop", .internal))
            return
        }
        loop.submit(.start(UpstreamExchange(request: request, loop: loop, onHead: onHead)))
    }

    /// Ends every transfer and waits for the transfer thread to exit. Later starts fail.
    public func shutdown() {
        loop?.stop(wait: true)
    }
}
