import HTTPTypes

/// The bounds an HTTP/2 connection keeps on its peer, and what it tells a peer that does not
/// speak HTTP/2: the transport's whole configuration, set by the protocol served over it.
struct H2Settings: Sendable {
    /// `SETTINGS_MAX_CONCURRENT_STREAMS`: a stream past it is refused by nghttp2 with `REFUSED_STREAM`.
    var maxConcurrentStreams: UInt32
    /// `SETTINGS_MAX_HEADER_LIST_SIZE`, enforced too: a larger header block is not kept
    /// (``H2Overflow/headerList(limit:)``).
    var maxHeaderListBytes: Int
    /// The largest request body kept (``H2Overflow/body(limit:)`` past it); also the initial
    /// stream window, so one whole body needs no WINDOW_UPDATE round trip.
    var maxBodyBytes: Int
    /// Request bytes one connection may hold for its open streams together; a DATA frame past
    /// it resets its stream (`ENHANCE_YOUR_CALM`).
    var maxBufferedBytesPerConnection: Int
    /// No response sent whole for this long: GOAWAY, then close. Also the send timeout.
    var idleTimeoutSeconds: Int
    /// A request must arrive whole, and its response be sent whole once queued, within this;
    /// else the stream is reset. Also the time the connection preface has from the accept.
    var requestTimeoutSeconds: Int
    /// Streams reset for ``requestTimeoutSeconds`` before the connection is closed
    /// (GOAWAY `ENHANCE_YOUR_CALM`).
    var maxTimedOutStreamsPerConnection: Int
    /// The body of the `505` an HTTP/1.x client gets instead of frames it cannot read.
    var notHTTP2Body: String
}

/// Answers each complete request of an HTTP/2 connection: the request, with the bound it went
/// past if any, in; the response (trailers included) out. Runs on the connection's thread, so
/// it must not block.
typealias H2Handler = @Sendable (HTTPRequest, H2Overflow?) -> HTTPResponse

/// Where an HTTP/2 connection reports what happens to it (`protocol_error`, `not_http2`,
/// `request_timeout`, `response_timeout`, `connection_closed`), with string fields.
typealias H2EventSink = @Sendable (_ event: String, _ fields: [String: String]) -> Void
