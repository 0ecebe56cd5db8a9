/// `match.schemes`: the URL's scheme is one of these.
enum SchemesForm {
    static let description = MatchFormDescription(
        form: .schemes, configKey: "schemes", place: .match, field: .schemes, storage: ["schemes"],
        normalisation: "a letter, then letters, digits, \"+\", \"-\" or \".\"; lower-cased (ASCII)",
        predicate: "the request's scheme equals an entry", reads: .scheme, index: .checkedOnCandidates,
        automaton: .none, image: .json, analysis: .regions(.scheme))

    /// An entry in comparison form, or nil when it is not a URL scheme.
    static func normalized(_ written: String) -> String? {
        guard let first = written.utf8.first, (first | 0x20) >= UInt8(ascii: "a"), (first | 0x20) <= UInt8(ascii: "z")
        else { return nil }
        let valid = written.utf8.allSatisfy { byte in
            let lower = byte | 0x20
            return (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }
        return valid ? asciiLowercased(written) : nil
    }

    /// What of the request the form compares (the scan looks it up in the set of entries).
    @inline(__always)
    static func value(of request: CanonicalRequest) -> String { request.scheme }

    /// The reference predicate for one normalised entry.
    @inline(__always)
    static func holds(_ scheme: String, _ request: CanonicalRequest) -> Bool { value(of: request) == scheme }
}
