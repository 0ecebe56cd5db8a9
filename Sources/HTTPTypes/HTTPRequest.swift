#if canImport(Glibc)
    import Glibc
#endif

/// One complete HTTP request as received, handed to an ``HTTPResponder`` by any transport.
///
/// Everything is copied out of the transport's buffers, so a request may outlive its
/// connection (for example in an asynchronous responder).
public struct HTTPRequest: Sendable {
    /// The method token exactly as sent ("GET", "POST", …).
    public var method: String
    /// The request target's bytes exactly as on the request line (still percent-encoded,
    /// query included; invalid UTF-8 already replaced by U+FFFD, as in ``rawTarget``).
    ///
    /// The server hands every request the bytes of its connection's reusable buffer (a
    /// shared array, no copy): most routes read the path and query as bytes
    /// (``pathBytes``, ``rawQueryBytes``), and a String is made only when one is asked for.
    public var rawTargetBytes: [UInt8] {
        didSet { questionMark = Self.firstQuestionMark(in: rawTargetBytes) }
    }
    /// Header fields in the order received. A received request's fields are made into
    /// Strings on the first read (most routes never read one); setting replaces them.
    public var headers: HTTPHeaders {
        get {
            switch headerStorage {
            case .fields(let fields): fields
            case .received(let received): received.headers
            }
        }
        set { headerStorage = .fields(newValue) }
    }
    /// Calls `body` with the value of the first field named `name` (ASCII case-insensitive:
    /// the field `headers[name]` returns) as bytes; nil when no field has that name.
    ///
    /// For a received request this reads the bytes as they arrived, without making every field
    /// a String the way reading ``headers`` does; a value that is not UTF-8 is handed over as
    /// sent, where ``headers`` would have replaced it with U+FFFD.
    public func withFirstHeaderValue<Result>(
        named name: HTTPFieldName, _ body: (UnsafeRawBufferPointer) -> Result
    ) -> Result? {
        switch headerStorage {
        case .fields(let fields):
            guard var value = fields[name] else { return nil }
            return value.withUTF8 { body(UnsafeRawBufferPointer($0)) }
        case .received(let received):
            var name = name.rawName
            return name.withUTF8 { received.withFirstValue(named: UnsafeRawBufferPointer($0), body) }
        }
    }

    /// The request body (already de-chunked).
    public var body: [UInt8]
    /// The peer's IP address as text ("127.0.0.1", "::1"); empty when unknown.
    public var remoteAddress: String
    /// The protocol version from the request line ("HTTP/1.1").
    public var httpVersion: String
    /// Where the query starts in ``rawTargetBytes`` (the offset of the first `?`): path and
    /// query are slices of the target, made into Strings only when asked for.
    private var questionMark: Int?
    private var headerStorage: HeaderStorage

    /// Where ``headers`` come from: given as Strings, or the bytes the server received.
    private enum HeaderStorage: Sendable {
        case fields(HTTPHeaders)
        case received(ReceivedHeaderFields)
    }

    /// Creates a request; `path` and `query` are derived from `rawTarget`.
    public init(
        method: String,
        rawTarget: String,
        headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [],
        remoteAddress: String = "",
        httpVersion: String = "HTTP/1.1"
    ) {
        self.init(
            method: method, rawTargetBytes: Array(rawTarget.utf8), headers: headers, body: body,
            remoteAddress: remoteAddress, httpVersion: httpVersion)
    }

    /// Creates a request from the target's bytes, which must be valid UTF-8 (the server
    /// repairs a target that is not before it gets here, so ``rawTarget`` round-trips).
    public init(
        method: String,
        rawTargetBytes: [UInt8],
        headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [],
        remoteAddress: String = "",
        httpVersion: String = "HTTP/1.1"
    ) {
        self.init(
            method: method, rawTargetBytes: rawTargetBytes, headerStorage: .fields(headers), body: body,
            remoteAddress: remoteAddress, httpVersion: httpVersion)
    }

    /// A request as a server received it: the fields stay bytes until read.
    package init(
        method: String, rawTargetBytes: [UInt8], receivedHeaders: ReceivedHeaderFields, body: [UInt8],
        remoteAddress: String, httpVersion: String
    ) {
        self.init(
            method: method, rawTargetBytes: rawTargetBytes, headerStorage: .received(receivedHeaders), body: body,
            remoteAddress: remoteAddress, httpVersion: httpVersion)
    }

    private init(
        method: String, rawTargetBytes: [UInt8], headerStorage: HeaderStorage, body: [UInt8], remoteAddress: String,
        httpVersion: String
    ) {
        self.method = method
        self.rawTargetBytes = rawTargetBytes
        self.questionMark = Self.firstQuestionMark(in: rawTargetBytes)
        self.headerStorage = headerStorage
        self.body = body
        self.remoteAddress = remoteAddress
        self.httpVersion = httpVersion
    }

    /// The request target exactly as on the request line, still percent-encoded, query
    /// included. A String made from ``rawTargetBytes`` on each read (an allocation past 15
    /// bytes): read the byte views where a String is not needed.
    public var rawTarget: String {
        get { String(decoding: rawTargetBytes, as: UTF8.self) }
        set { rawTargetBytes = Array(newValue.utf8) }
    }

    /// The target without its query as bytes (a slice of ``rawTargetBytes``, no copy).
    public var pathBytes: ArraySlice<UInt8> {
        rawTargetBytes[..<(questionMark ?? rawTargetBytes.endIndex)]
    }

    /// The raw query after the first "?", without the "?", as bytes (a slice of
    /// ``rawTargetBytes``, no copy); nil when the target has none.
    public var rawQueryBytes: ArraySlice<UInt8>? {
        questionMark.map { rawTargetBytes[($0 + 1)...] }
    }

    /// The target without its query, still percent-encoded (`%2F` stays distinguishable from `/`).
    /// Setting it keeps the query.
    public var path: String {
        get { String(decoding: pathBytes, as: UTF8.self) }
        set {
            var target = Array(newValue.utf8)
            if let query = rawQueryBytes {
                target.append(UInt8(ascii: "?"))
                target.append(contentsOf: query)
            }
            rawTargetBytes = target
        }
    }

    /// The raw query after the first "?", without the "?"; nil when the target has none.
    /// Setting it keeps the path (nil removes the "?").
    public var query: String? {
        get { rawQueryBytes.map { String(decoding: $0, as: UTF8.self) } }
        set {
            var target = Array(pathBytes)
            if let newValue {
                target.append(UInt8(ascii: "?"))
                target.append(contentsOf: newValue.utf8)
            }
            rawTargetBytes = target
        }
    }

    /// The raw query as a Substring; nil when the target has none. Makes a String of the
    /// query: ``rawQueryBytes`` reads it without one.
    public var rawQuery: Substring? {
        query.map { Substring($0) }
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

    /// Searched with `memchr` over the array's storage: a generic `firstIndex(of:)` cost
    /// ≈ 10 instructions per byte.
    private static func firstQuestionMark(in target: [UInt8]) -> Int? {
        target.withUnsafeBytes { bytes -> Int? in
            // memchr reads only `bytes.count` bytes from the start of the buffer.
            guard let start = bytes.baseAddress, let found = memchr(start, Int32(UInt8(ascii: "?")), bytes.count) else {
                return nil
            }
            return UnsafeRawPointer(found) - start
        }
    }
}
