import JSONSupport
import NavigationPolicy

/// Member checks for intake JSON objects, with RFC 6901 pointers to the offending member.
///
/// Formats that are ours (the plain `{url, title, text, tags}` body and the
/// `{extensionItems, tags}` wrapper) reject every unknown member, as `/v1/decide` does: a
/// misspelled `titel` would otherwise be stored as `title: null`. Objects that mirror
/// Apple's NSExtensionItem and NSItemProvider may carry keys a serializer adds, so there only
/// near-misses of the keys intake reads (`attachements`) are rejected.
enum JSONMembers {
    /// `pointer` + `/` + `key`, with `~` and `/` escaped.
    static func pointer(_ pointer: String, _ key: String) -> String {
        pointer + "/" + key.replacing("~", with: "~0").replacing("/", with: "~1")
    }

    /// Throws `malformed-body` at the first member not in `allowed`, with a suggestion.
    static func rejectUnknown(_ object: JSONObject, allowed: [String], at base: String) throws(IntakeFailure) {
        for member in object.members where !allowed.containsSameUTF8(member.key) {
            var detail = "unknown member \"\(EchoedText.bounded(member.key))\""
            if let suggestion = Spelling.closest(to: member.key, in: allowed) {
                detail += "; did you mean \"\(suggestion)\"?"
            } else {
                detail += "; expected " + allowed.map { "\"\($0)\"" }.joined(separator: ", ")
            }
            throw .at(pointer(base, member.key), .malformedBody, detail)
        }
    }

    /// Throws `malformed-body` at the first unknown member that looks like a misspelling of one
    /// in `known` (within two edits). Keys under 4 characters are never taken for one: two
    /// edits turn almost any short key into `items`.
    static func rejectMisspelled(_ object: JSONObject, known: [String], at base: String) throws(IntakeFailure) {
        for member in object.members where !known.containsSameUTF8(member.key) && member.key.count >= 4 {
            if let suggestion = Spelling.closest(to: member.key, in: known) {
                throw .at(
                    pointer(base, member.key), .malformedBody,
                    "unknown member \"\(EchoedText.bounded(member.key))\"; did you mean \"\(suggestion)\"?")
            }
        }
    }
}
