/// `text/uri-list` (RFC 2483 §5): one URI a line, `#` comment lines, CRLF or LF line ends.
enum URIList {
    /// Every URI line is a candidate; a comment line directly before the first URI is its title
    /// (MDN: drag sources put the title there). A `#` counts only as the first character of a
    /// line, so `https://a.example/#frag` is a URI.
    static func payload(from text: String) throws(IntakeFailure) -> SharedPayload {
        var urls: [String] = []
        var title: String?
        var pendingComment: String?
        // Lines by bytes: split at LF, one CR before it dropped (CRLF or LF line ends). Split as
        // `Character`s, a line of one long run of combining marks was one `Character` whose
        // every comparison normalized it, quadratic in its length (outside attack 15: 183 ms at
        // 31 KB).
        for var line in Array(text.utf8).split(separator: 0x0A, omittingEmptySubsequences: false) {
            if line.last == 0x0D { line = line.dropLast() }
            if line.first == UInt8(ascii: "#") {
                pendingComment = String(decoding: line.dropFirst(), as: UTF8.self).trimmingASCIIWhitespace
                continue
            }
            let uri = String(decoding: line, as: UTF8.self).trimmingASCIIWhitespace
            guard !uri.isEmpty else {
                pendingComment = nil
                continue
            }
            if urls.isEmpty, let comment = pendingComment, !comment.isEmpty { title = comment }
            pendingComment = nil
            urls.append(uri)
        }
        guard !urls.isEmpty else {
            throw IntakeFailure(
                .noURLFound, "the uri-list holds no URI lines", extensions: ["searched": .array([.string("lines")])])
        }
        return SharedPayload(format: .uriList, urls: urls, title: title)
    }
}
