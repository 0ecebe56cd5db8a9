/// `text/uri-list` (RFC 2483 §5): one URI a line, `#` comment lines, CRLF or LF line ends.
enum URIList {
    /// Every URI line is a candidate; a comment line directly before the first URI is its title
    /// (MDN: drag sources put the title there). A `#` counts only as the first character of a
    /// line, so `https://a.example/#frag` is a URI.
    static func payload(from text: String) throws(IntakeFailure) -> SharedPayload {
        var urls: [String] = []
        var title: String?
        var pendingComment: String?
        // "\r\n" is one Character in Swift, so it is a separator of its own, next to a bare LF.
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\r\n" || $0 == "\n" }) {
            if line.hasPrefix("#") {
                pendingComment = String(line.dropFirst()).trimmingASCIIWhitespace
                continue
            }
            let uri = String(line).trimmingASCIIWhitespace
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
