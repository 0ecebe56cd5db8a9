import JSONSupport
import NavigationPolicy

/// Web Share Target forms: `url`, `title` and `text` fields, urlencoded or multipart.
enum FormPayload {
    /// The fields a share form carries; each may appear once.
    static let shareFieldNames = ["url", "title", "text"]

    /// Builds the payload from decoded fields. Unknown names are ignored (manifests may map
    /// extra params); a share field given twice is refused, since which copy wins differs
    /// between parsers and the URL decided must be the URL stored.
    static func payload(from fields: [(name: String, value: String)], format: SharedPayload.Format)
        throws(IntakeFailure) -> SharedPayload
    {
        for name in shareFieldNames where fields.count(where: { $0.name.hasSameUTF8(as: name) }) > 1 {
            throw IntakeFailure(.malformedBody, "the form field \"\(name)\" is given more than once; send it once")
        }
        func only(_ name: String) -> String? { fields.first { $0.name.hasSameUTF8(as: name) }?.value.nonEmpty }
        let share = ShareFields(url: only("url"), title: only("title"), text: only("text"))
        let url = try share.urlCandidate()
        return SharedPayload(format: format, urls: [url], title: share.title, text: share.text)
    }

    /// Decodes `application/x-www-form-urlencoded` strictly: the decoded bytes must be UTF-8
    /// without NUL, because `%FF` or `%00` in a share is an attack or a bug, never a title.
    static func decodeURLEncoded(_ text: String) throws(IntakeFailure) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        for part in text.utf8.split(separator: UInt8(ascii: "&")) {
            let pieces = part.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            let name = try decodeComponent(pieces.first.map { Array($0) } ?? [])
            let value = pieces.count > 1 ? try decodeComponent(Array(pieces[1])) : ""
            fields.append((name: name, value: value))
        }
        return fields
    }

    private static func decodeComponent(_ component: some Collection<UInt8>) throws(IntakeFailure) -> String {
        let output = PercentEncodeSet.decode(Array(component), plusAsSpace: true)
        guard let decoded = String(validating: output, as: UTF8.self) else {
            throw IntakeFailure(.malformedBody, "a form field decodes to invalid UTF-8")
        }
        try PayloadParser.rejectNUL(decoded, in: "a form field")
        return decoded
    }
}
