public import HTTPTypes

/// The status and header fields of an origin's response, assembled from the header lines
/// libcurl hands over one at a time.
///
/// Parsed on bytes: the header callback runs for every line of every response, so this is
/// on the allow path's hot loop. Interim responses (`100 Continue`, `103 Early Hints`) are
/// dropped; lines after the final head (trailers) are ignored.
///
/// A head that breaks RFC 9112's field syntax is marked ``isMalformed`` and never relayed
/// (the client gets 502): a control character other than HTAB in the status line or a field
/// value (a bare CR, NUL, a CR before the line's end), a field name that is not a token
/// (whitespace before the colon), and a line that is not a field at all (what a bare LF in a
/// value leaves behind, or obs-fold). Such a head cannot be written out as received, and
/// mending it (dropping the field, cutting the value) would relay a head the origin never sent.
public struct ResponseHead: Sendable {
    /// The final status code, or 0 until a status line was seen.
    public private(set) var status = 0
    /// The final response's fields as received, hop-by-hop fields included.
    public private(set) var headers = HTTPHeaders()
    /// True once the blank line ending a final (non-1xx) head was seen.
    public private(set) var isComplete = false
    /// True once any line of the head (interim heads included) broke the field syntax.
    public private(set) var isMalformed = false

    /// Creates an empty head.
    public init() {}

    /// Consumes one line, CRLF included (as libcurl passes it).
    public mutating func consume(line: UnsafeRawBufferPointer) {
        guard !isComplete else { return }
        // One line end (LF or CRLF) comes off; any other CR stays and makes the line malformed.
        var end = line.count
        if end > 0, line[end - 1] == UInt8(ascii: "\n") { end -= 1 }
        if end > 0, line[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        if end == 0 {
            // The blank line: the head is over, unless it was an interim (1xx) response.
            if status >= 200 { isComplete = true } else { status = 0 }
            return
        }
        let content = UnsafeRawBufferPointer(rebasing: line[..<end])
        if Self.startsWithHTTPVersion(content) {
            // reason-phrase = *( HTAB / SP / VCHAR / obs-text ): the field-value rule.
            if !FieldSyntax.isFieldValue(content) { isMalformed = true }
            status = Self.statusCode(ofStatusLine: content)
            headers = HTTPHeaders()
            // Room for a typical head at once instead of four doublings per response.
            headers.reserveCapacity(16)
            return
        }
        guard status != 0 else { return }
        guard let colon = content.firstIndex(of: UInt8(ascii: ":")), colon > 0 else {
            isMalformed = true
            return
        }
        let name = UnsafeRawBufferPointer(rebasing: content[..<colon])
        // RFC 9112 §5.1: no whitespace between name and colon; such a line is not a field.
        guard FieldSyntax.isToken(name) else {
            isMalformed = true
            return
        }
        var valueStart = colon + 1
        var valueEnd = content.count
        while valueStart < valueEnd, Self.isBlank(content[valueStart]) { valueStart += 1 }
        while valueEnd > valueStart, Self.isBlank(content[valueEnd - 1]) { valueEnd -= 1 }
        let value = UnsafeRawBufferPointer(rebasing: content[valueStart..<valueEnd])
        guard FieldSyntax.isFieldValue(value) else {
            isMalformed = true
            return
        }
        headers.add(name: HTTPFieldName(String(decoding: name, as: UTF8.self)), value: String(decoding: value, as: UTF8.self))
    }

    /// The body length the origin declared, when it is a plain `Content-Length` (no
    /// `Transfer-Encoding`, one consistent value).
    public var declaredContentLength: Int? {
        // One pass over the fields, no array of values, names compared only when the length
        // fits (17: Transfer-Encoding, 14: Content-Length): this runs for every relayed answer.
        var declared: String?
        for field in headers {
            switch field.name.utf8.count {
            case 17 where HTTPFieldName.transferEncoding.matches(field.name):
                return nil
            case 14 where HTTPFieldName.contentLength.matches(field.name):
                if let earlier = declared, earlier != field.value { return nil }
                declared = field.value
            default:
                continue
            }
        }
        guard let first = declared else { return nil }
        guard !first.isEmpty, first.utf8.count <= 18, first.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(first)
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    private static func startsWithHTTPVersion(_ line: UnsafeRawBufferPointer) -> Bool {
        line.count >= 5 && line[0] == UInt8(ascii: "H") && line[1] == UInt8(ascii: "T") && line[2] == UInt8(ascii: "T")
            && line[3] == UInt8(ascii: "P") && line[4] == UInt8(ascii: "/")
    }

    /// The three digits after the version ("HTTP/1.1 204 No Content", "HTTP/2 200"); 0 if malformed.
    private static func statusCode(ofStatusLine line: UnsafeRawBufferPointer) -> Int {
        guard let space = line.firstIndex(of: UInt8(ascii: " ")), space + 3 <= line.count else { return 0 }
        var code = 0
        for index in space + 1..<space + 4 {
            let byte = line[index]
            guard byte >= 0x30 && byte <= 0x39 else { return 0 }
            code = code * 10 + Int(byte - 0x30)
        }
        if space + 4 < line.count, line[space + 4] != UInt8(ascii: " ") { return 0 }
        return (100...599).contains(code) ? code : 0
    }
}
