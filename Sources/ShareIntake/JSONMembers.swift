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
    /// `pointer` + `/` + `key` (echoed bounded), with `~` and `/` escaped. By bytes: `replacing`
    /// compares `Character`s, and a key of one long run of combining marks is one whose every
    /// comparison normalized it (outside attack 15, F1).
    static func pointer(_ pointer: String, _ key: String) -> String {
        var escaped: [UInt8] = []
        for byte in EchoedText.bounded(key).utf8 {
            switch byte {
            case UInt8(ascii: "~"): escaped += [UInt8(ascii: "~"), UInt8(ascii: "0")]
            case UInt8(ascii: "/"): escaped += [UInt8(ascii: "~"), UInt8(ascii: "1")]
            default: escaped.append(byte)
            }
        }
        return pointer + "/" + String(decoding: escaped, as: UTF8.self)
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
