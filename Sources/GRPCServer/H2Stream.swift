import Glibc
import HTTPTypes

/// What a stream's request went past, for the layer above to answer in its own terms: the
/// transport stops keeping what is past a bound, but does not pick the answer.
enum H2Overflow: Equatable, Sendable {
    /// The header block was larger than this many bytes (counted as
    /// `SETTINGS_MAX_HEADER_LIST_SIZE` counts them); fields past it were not kept.
    case headerList(limit: Int)
    /// The body was larger than this many bytes; none of it was kept.
    case body(limit: Int)
}

/// One request stream of an HTTP/2 connection, as it arrives: its header fields and its body,
/// kept within the connection's bounds, then handed over as one ``HTTPRequest``. Pure state:
/// the connection feeds it what nghttp2 reports, so its rules are tested without a socket.
struct H2Stream {
    let openedAt: ContinuousClock.Instant
    private let maxHeaderListBytes: Int
    private let maxBodyBytes: Int
    private var method = ""
    private var target: [UInt8] = []
    /// The regular fields (pseudo-headers are read into ``method`` and ``target``), kept as
    /// the bytes received: a String is made only for a field the handler reads as one (a
    /// String per field cost the Check path ≈ 14k instructions in the debug build).
    private let headers = ReceivedHeaderFields()
    private var headerBytes = 0
    private var headersTooLarge = false
    private(set) var body: [UInt8] = []
    private var bodyTooLarge = false

    init(openedAt: ContinuousClock.Instant, maxHeaderListBytes: Int, maxBodyBytes: Int) {
        self.openedAt = openedAt
        self.maxHeaderListBytes = maxHeaderListBytes
        self.maxBodyBytes = maxBodyBytes
    }

    /// One header field of the request, or of its trailers (`isTrailer`: those only count toward
    /// the limit). Sizes are counted as `SETTINGS_MAX_HEADER_LIST_SIZE` counts them:
    /// name + value + 32.
    mutating func header(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, isTrailer: Bool = false) {
        headerBytes += name.count + value.count + 32
        guard headerBytes <= maxHeaderListBytes else {
            headersTooLarge = true
            return
        }
        guard !headersTooLarge, !isTrailer else { return }
        guard let first = name.baseAddress, first.pointee == UInt8(ascii: ":") else {
            headers.append(name: UnsafeRawBufferPointer(name), value: UnsafeRawBufferPointer(value))
            return
        }
        // nghttp2 has checked the pseudo-headers (each once, before the fields, none unknown);
        // `:scheme` and `:authority` are not part of the request model.
        if Self.equal(name, ":method") {
            method = String(decoding: value, as: UTF8.self)
        } else if Self.equal(name, ":path") {
            target = Array(value)
        }
    }

    /// A length check and `memcmp`: `elementsEqual` against a literal's UTF-8 view cost
    /// ≈ 1.5k instructions per field in the debug build (≈ 300 optimized).
    private static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        guard bytes.count == literal.utf8CodeUnitCount, let start = bytes.baseAddress else { return false }
        return memcmp(start, literal.utf8Start, bytes.count) == 0
    }

    /// A chunk of the body. Past ``maxBodyBytes`` nothing more is kept.
    mutating func data(_ chunk: UnsafeBufferPointer<UInt8>) {
        guard !bodyTooLarge else { return }
        guard body.count + chunk.count <= maxBodyBytes else {
            bodyTooLarge = true
            body = []
            return
        }
        body.append(contentsOf: chunk)
    }

    /// The bound the request went past, if any (the header list's first: it is met first).
    var overflow: H2Overflow? {
        if headersTooLarge { return .headerList(limit: maxHeaderListBytes) }
        if bodyTooLarge { return .body(limit: maxBodyBytes) }
        return nil
    }

    /// The request as received, once it ended.
    func request(remoteAddress: String) -> HTTPRequest {
        HTTPRequest(
            method: method, rawTargetBytes: target, receivedHeaders: headers, body: body, remoteAddress: remoteAddress,
            httpVersion: "HTTP/2")
    }
}
