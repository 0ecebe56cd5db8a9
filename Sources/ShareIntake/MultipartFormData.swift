import JSONSupport
import NavigationPolicy

/// A strict `multipart/form-data` reader (RFC 7578) for text fields only.
///
/// Share-target forms carry `url`, `title` and `text`; a part with a `filename` or a
/// non-text `Content-Type` is a file and is refused rather than skipped, so a client
/// learns at once that this endpoint stores no files.
enum MultipartFormData {
    /// More parts than any share form has; bounds the work on hostile bodies.
    static let maximumParts = 64

    /// The named text fields in body order.
    static func parse(_ body: [UInt8], boundary: String) throws(IntakeFailure) -> [(name: String, value: String)] {
        guard boundary.utf8.count <= 70 else {
            throw IntakeFailure(.malformedBody, "the multipart boundary is longer than 70 characters")
        }
        let delimiter = Array("--\(boundary)".utf8)
        let separator = Array("\r\n--\(boundary)".utf8)
        // The first delimiter opens the body or follows a preamble line.
        guard let firstDelimiter = firstDelimiter(in: body, delimiter: delimiter) else {
            throw IntakeFailure(.malformedBody, "the body does not contain the multipart boundary")
        }
        var position = firstDelimiter + delimiter.count
        var fields: [(name: String, value: String)] = []
        while true {
            if starts(body, at: position, with: Array("--".utf8)) { return fields }
            // Transport padding (spaces, tabs) may follow a delimiter before its CRLF.
            while position < body.count, body[position] == 0x20 || body[position] == 0x09 { position += 1 }
            guard starts(body, at: position, with: [0x0D, 0x0A]) else {
                throw IntakeFailure(.malformedBody, "a multipart delimiter is not followed by CRLF")
            }
            position += 2
            guard let headerEnd = find([0x0D, 0x0A, 0x0D, 0x0A], in: body, from: position) else {
                throw IntakeFailure(.malformedBody, "a multipart part has no end of headers")
            }
            let headers = try PayloadParser.utf8Text(Array(body[position..<headerEnd]))
            let name = try fieldName(fromHeaders: headers)
            let contentStart = headerEnd + 4
            guard let contentEnd = find(separator, in: body, from: contentStart) else {
                throw IntakeFailure(.malformedBody, "the multipart body is not closed by --\(boundary)--")
            }
            let value = try PayloadParser.utf8Text(Array(body[contentStart..<contentEnd]))
            fields.append((name: name, value: value))
            guard fields.count <= maximumParts else {
                throw IntakeFailure(.malformedBody, "more than \(maximumParts) multipart parts")
            }
            position = contentEnd + separator.count
        }
    }

    private static func firstDelimiter(in body: [UInt8], delimiter: [UInt8]) -> Int? {
        if starts(body, at: 0, with: delimiter) { return 0 }
        return find([0x0D, 0x0A] + delimiter, in: body, from: 0).map { $0 + 2 }
    }

    /// The `name` of a `Content-Disposition: form-data` part, refusing file parts.
    private static func fieldName(fromHeaders headers: String) throws(IntakeFailure) -> String {
        var name: String?
        var seen: Set<String> = []
        // Lines, names and colons found by bytes: split as `String`s, CR LF is one `Character`,
        // and a header of one long run of combining marks one more whose every comparison
        // normalized it (outside attack 15, F1). A name that is not a token is no header this
        // reader knows, and is skipped as an unknown one was.
        for line in Self.lines(Array(headers.utf8)) {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                throw IntakeFailure(.malformedBody, "a multipart header line has no colon")
            }
            let headerName = line[..<colon]
            guard headerName.allSatisfy(HTTPToken.isTokenByte) else { continue }
            let header = String(decoding: headerName.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingASCIIWhitespace
            // One meaning per part: with two dispositions, two names or two charsets, which one
            // counts differs between parsers (the first here, the last in others).
            if header == "content-disposition" || header == "content-type" {
                guard seen.insert(header).inserted else {
                    throw IntakeFailure(.malformedBody, "a multipart part has more than one \(header) header")
                }
            }
            switch header {
            case "content-disposition":
                guard let disposition = MediaType("x/" + value, backslashEscapes: false), disposition.essence == "x/form-data"
                else {
                    throw IntakeFailure(.malformedBody, "a multipart part is not Content-Disposition: form-data")
                }
                if let repeated = disposition.repeatedParameter {
                    throw IntakeFailure(
                        .malformedBody, "a multipart part's Content-Disposition gives \(repeated) more than once")
                }
                // RFC 7578 §4.2: form-data names are not written in RFC 8187's `name*=utf-8''…`
                // notation; a reader that decodes it would see another field than this one.
                if disposition.parameters["name*"] != nil {
                    throw IntakeFailure(.malformedBody, "a multipart part's Content-Disposition uses name*; send name=\"…\"")
                }
                if disposition.parameters["filename"] != nil || disposition.parameters["filename*"] != nil {
                    throw IntakeFailure(.malformedBody, "file parts are not accepted; send url, title and text fields")
                }
                name = disposition.parameters["name"]
            case "content-type":
                guard let type = MediaType(value), type.repeatedParameter == nil, type.extendedParameter == nil,
                    type.essence == "text/plain",
                    type.parameters["charset"].map({ $0.lowercased().hasSameUTF8(as: "utf-8") }) ?? true
                else {
                    throw IntakeFailure(.malformedBody, "file parts are not accepted (part Content-Type \(value))")
                }
            default:
                continue
            }
        }
        guard let name, !name.isEmpty else {
            throw IntakeFailure(.malformedBody, "a multipart part has no Content-Disposition name")
        }
        return name
    }

    /// The non-empty lines of a part's head, split at CR LF.
    private static func lines(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var start = 0
        var index = 0
        while index + 1 < bytes.count {
            if bytes[index] == 0x0D, bytes[index + 1] == 0x0A {
                if start < index { lines.append(bytes[start..<index]) }
                index += 2
                start = index
            } else {
                index += 1
            }
        }
        if start < bytes.count { lines.append(bytes[start...]) }
        return lines
    }

    private static func starts(_ body: [UInt8], at position: Int, with prefix: [UInt8]) -> Bool {
        guard position >= 0, position + prefix.count <= body.count else { return false }
        return body[position..<position + prefix.count].elementsEqual(prefix)
    }

    private static func find(_ needle: [UInt8], in body: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, start >= 0 else { return nil }
        var index = start
        while index + needle.count <= body.count {
            if body[index] == first, body[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
