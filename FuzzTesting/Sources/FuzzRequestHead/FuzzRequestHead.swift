import HTTPServer
import HTTPTypes

/// The request-head checks libmicrohttpd does not make: the field-syntax checks, the walk
/// over the head MHD parsed in place (``HeaderSectionLayout``), and the framing and Host
/// rules (``RequestHeadValidation``).
///
/// The input is a raw request head. The harness parses it the way MHD 0.9.75 does, in place:
/// line ends and the colon become NULs, the value starts after the whitespace that follows
/// the colon, a line starting with whitespace (obs-fold) is not reported. The buffer is
/// exactly the head plus a little pool memory after it, so any read the layout walk makes
/// past the memory it was given is an AddressSanitizer report.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestHead(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let input = Array(UnsafeRawBufferPointer(start: start, count: start == nil ? 0 : count))
    // MHD reads up to the first empty line; an input without one gets one appended.
    let terminated = input + Array("\r\n\r\n".utf8)
    guard let end = headEnd(terminated) else { return 0 }
    let head = Array(terminated[..<end])
    let original = head
    let poolSlack = 8
    var buffer = head + [UInt8](repeating: 0x41, count: poolSlack)
    let fields = parseInPlace(&buffer, headSize: head.count)
    guard let requestLine = fields.requestLine else { return 0 }

    let wellFormed = isWellFormed(original)
    buffer.withUnsafeBytes { raw in
        guard let base = raw.baseAddress else { return }
        var layout = HeaderSectionLayout(
            start: base, size: head.count, version: base + requestLine.versionOffset,
            versionLength: requestLine.versionLength)
        var accepted = true
        for field in fields.fields where accepted {
            accepted = layout.accept(
                name: base + field.nameOffset, nameLength: field.nameLength, value: base + field.valueOffset,
                valueLength: field.valueLength)
        }
        if accepted { accepted = layout.finish() }
        if wellFormed && !accepted {
            fatalError(
                "a well-formed head is rejected as malformed: \(String(decoding: original, as: UTF8.self).debugDescription)")
        }
    }

    var headers = HTTPHeaders()
    var violation: FieldSyntaxViolation?
    var headerBytes = 0
    for field in fields.fields {
        let name = buffer[field.nameOffset..<(field.nameOffset + field.nameLength)]
        let value = buffer[field.valueOffset..<(field.valueOffset + field.valueLength)]
        if !RequestHeadValidation.isToken(name) {
            violation = .invalidName
            break
        }
        if !RequestHeadValidation.isFieldValue(value) {
            violation = .invalidValue
            break
        }
        headers.add(name: HTTPFieldName(String(decoding: name, as: UTF8.self)), value: String(decoding: value, as: UTF8.self))
        headerBytes += name.count + value.count + 4
    }
    let validation = RequestHeadValidation(maxTargetBytes: 8192, maxHeaderBytes: 16384)
    do throws(ProblemDetails) {
        let length = try validation.validate(
            method: requestLine.method, rawTarget: requestLine.target, httpVersion: requestLine.version, headers: headers,
            headerBytes: headerBytes, fieldSyntax: violation)
        if violation != nil { fatalError("a field-syntax violation was not reported") }
        if let length, length < 0 { fatalError("negative Content-Length \(length) accepted") }
        if headers.count(of: "Content-Length") > 0 && headers.count(of: "Transfer-Encoding") > 0 {
            fatalError("Content-Length and Transfer-Encoding accepted together")
        }
        if headers.count(of: "Host") > 1 { fatalError("two Host fields accepted") }
    } catch {
        if error.status < 400 || error.status > 599 { fatalError("a rejection with status \(error.status)") }
    }
    return 0
}

private struct RequestLine {
    var method: String
    var target: String
    var version: String
    var versionOffset: Int
    var versionLength: Int
}

private struct ReportedField {
    var nameOffset: Int
    var nameLength: Int
    var valueOffset: Int
    var valueLength: Int
}

/// The offset just past the empty line that ends the head (CRLF or LF line ends), or nil.
private func headEnd(_ bytes: [UInt8]) -> Int? {
    var index = 0
    var lineStart = 0
    while index < bytes.count {
        if bytes[index] == UInt8(ascii: "\n") {
            let lineLength = index - lineStart
            if lineStart > 0 && (lineLength == 0 || (lineLength == 1 && bytes[lineStart] == UInt8(ascii: "\r"))) {
                return index + 1
            }
            lineStart = index + 1
        }
        index += 1
    }
    return nil
}

/// The head's lines as (start, end of content) pairs; the line end bytes are not included.
private func lines(_ buffer: [UInt8], headSize: Int) -> [(start: Int, end: Int, next: Int)] {
    var result: [(Int, Int, Int)] = []
    var lineStart = 0
    var index = 0
    while index < headSize {
        if buffer[index] == UInt8(ascii: "\n") {
            var end = index
            if end > lineStart && buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            result.append((lineStart, end, index + 1))
            lineStart = index + 1
        }
        index += 1
    }
    return result
}

/// Splits the head like MHD: NULs over line ends and colons; reports what MHD would.
private func parseInPlace(_ buffer: inout [UInt8], headSize: Int) -> (requestLine: RequestLine?, fields: [ReportedField]) {
    let all = lines(buffer, headSize: headSize)
    guard let first = all.first else { return (nil, []) }
    for line in all {
        for index in line.end..<line.next { buffer[index] = 0 }
    }
    let requestBytes = buffer[first.start..<first.end]
    guard let firstSpace = requestBytes.firstIndex(of: UInt8(ascii: " ")),
        let lastSpace = requestBytes.lastIndex(of: UInt8(ascii: " ")), lastSpace > firstSpace
    else { return (nil, []) }
    let requestLine = RequestLine(
        method: String(decoding: buffer[first.start..<firstSpace], as: UTF8.self),
        target: String(decoding: buffer[(firstSpace + 1)..<lastSpace], as: UTF8.self),
        version: String(decoding: buffer[(lastSpace + 1)..<first.end], as: UTF8.self),
        versionOffset: lastSpace + 1, versionLength: first.end - lastSpace - 1)
    buffer[firstSpace] = 0
    buffer[lastSpace] = 0
    var fields: [ReportedField] = []
    for line in all.dropFirst() where line.end > line.start {
        let first = buffer[line.start]
        if first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { continue }  // obs-fold: hidden from the walk
        guard let colon = buffer[line.start..<line.end].firstIndex(of: UInt8(ascii: ":")), colon > line.start else {
            continue
        }
        buffer[colon] = 0
        var valueStart = colon + 1
        while valueStart < line.end, buffer[valueStart] == UInt8(ascii: " ") || buffer[valueStart] == UInt8(ascii: "\t") {
            valueStart += 1
        }
        fields.append(
            ReportedField(
                nameOffset: line.start, nameLength: colon - line.start, valueOffset: valueStart,
                valueLength: line.end - valueStart))
    }
    return (requestLine, fields)
}

/// A head any strict parser accepts: no NUL, no bare CR, no obs-fold, every field line
/// `token: value` with a value free of control characters.
private func isWellFormed(_ head: [UInt8]) -> Bool {
    if head.contains(0) { return false }
    let all = lines(head, headSize: head.count)
    for line in all {
        if head[line.start..<line.end].contains(UInt8(ascii: "\r")) { return false }
    }
    for line in all.dropFirst() where line.end > line.start {
        let bytes = head[line.start..<line.end]
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return false }
        guard RequestHeadValidation.isToken(head[line.start..<colon]) else { return false }
        guard RequestHeadValidation.isFieldValue(head[(colon + 1)..<line.end]) else { return false }
    }
    return true
}
