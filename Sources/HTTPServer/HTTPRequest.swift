#if canImport(Glibc)
    import Glibc
#endif

/// One complete HTTP request as received, handed to an ``HTTPResponder``.
///
/// Everything is copied out of libmicrohttpd's buffers, so a request may outlive its
/// connection (for example in an asynchronous responder).
public struct HTTPRequest: Sendable {
    /// The method token exactly as sent ("GET", "POST", …).
    public var method: String
    /// The request target exactly as on the request line, still percent-encoded, query included.
    public var rawTarget: String {
        didSet { questionMark = Self.firstQuestionMark(in: rawTarget) }
    }
    /// Header fields in the order received.
    public var headers: HTTPHeaders
    /// The request body (already de-chunked).
    public var body: [UInt8]
    /// The peer's IP address as text ("127.0.0.1", "::1"); empty when unknown.
    public var remoteAddress: String
    /// The protocol version from the request line ("HTTP/1.1").
    public var httpVersion: String
    /// Where the query starts in ``rawTarget``: path and query are slices of the target,
    /// made into Strings only when asked for (most responders never ask for the query).
    private var questionMark: String.Index?

    /// Creates a request; `path` and `query` are derived from `rawTarget`.
    public init(
        method: String,
        rawTarget: String,
        headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [],
        remoteAddress: String = "",
        httpVersion: String = "HTTP/1.1"
    ) {
        self.method = method
        self.rawTarget = rawTarget
        self.questionMark = Self.firstQuestionMark(in: rawTarget)
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        self.httpVersion = httpVersion
    }

    /// The target without its query, still percent-encoded (`%2F` stays distinguishable from `/`).
    /// Setting it keeps the query.
    public var path: String {
        get { questionMark.map { String(rawTarget[..<$0]) } ?? rawTarget }
        set { rawTarget = newValue + (rawQuery.map { "?" + $0 } ?? "") }
    }

    /// The raw query after the first "?", without the "?"; nil when the target has none.
    /// Setting it keeps the path (nil removes the "?").
    public var query: String? {
        get { rawQuery.map(String.init) }
        set { rawTarget = path + (newValue.map { "?" + $0 } ?? "") }
    }

    /// The raw query as a slice of ``rawTarget`` (no copy); nil when the target has none.
    public var rawQuery: Substring? {
        questionMark.map { rawTarget[rawTarget.utf8.index(after: $0)...] }
    }

    /// The query decoded as `application/x-www-form-urlencoded` pairs ('+' is a space), in order.
    public var queryItems: [(name: String, value: String)] {
        guard let rawQuery else { return [] }
        return FormURLDecoding.pairs(rawQuery)
    }

    /// The decoded value of the first query item named `name`, or nil; decodes only that value.
    public func queryValue(_ name: String) -> String? {
        guard let rawQuery else { return nil }
        return FormURLDecoding.firstValue(named: name, in: rawQuery)
    }

    /// Searched with `memchr` in the contiguous UTF-8 (a native String's own storage, no
    /// copy): a Character search walks grapheme clusters, and `firstIndex(of:)` on the
    /// `UTF8View` cost ≈ 10 instructions per byte; the offset becomes an index in O(1) on
    /// UTF-8 storage.
    private static func firstQuestionMark(in target: String) -> String.Index? {
        var target = target
        let offset = target.withUTF8 { bytes -> Int? in
            // memchr reads only `bytes.count` bytes from the start of the buffer.
            guard let start = bytes.baseAddress, let found = memchr(start, Int32(UInt8(ascii: "?")), bytes.count) else {
                return nil
            }
            return UnsafeRawPointer(found) - UnsafeRawPointer(start)
        }
        return offset.map { target.utf8.index(target.utf8.startIndex, offsetBy: $0) }
    }
}
