/// `match.methods`: the request's method is one of these (`GET` also covers `HEAD`).
enum MethodsForm {
    static let description = MatchFormDescription(
        form: .methods, configKey: "methods", place: .match, field: .methods, storage: ["methods"],
        normalisation: "an HTTP method token, upper-cased for the methods RFC 9110 defines; GET implies HEAD",
        predicate: "the request's method equals an entry, or is HEAD and an entry is GET", reads: .method,
        index: .checkedOnCandidates, automaton: .none, image: .json, analysis: .regions(.method))

    /// An entry in comparison form, or nil when it is not a method token.
    static func normalized(_ written: String) -> String? { HTTPMethod.normalized(written) }

    /// The method an entry matches besides itself: HEAD for GET. HEAD is GET without the body:
    /// servers and frameworks route it to the GET handler, so a rule about GET that let HEAD
    /// through would be dodged by it.
    @inline(__always)
    static func implied(by normalized: String) -> String? { normalized == "GET" ? "HEAD" : nil }

    /// What of the request the form compares (the scan looks it up in the set of the entries
    /// and the methods they imply).
    @inline(__always)
    static func value(of request: CanonicalRequest) -> String { request.method }

    /// The reference predicate for one normalised entry.
    @inline(__always)
    static func holds(_ method: String, _ request: CanonicalRequest) -> Bool {
        let requested = value(of: request)
        return requested == method || implied(by: method) == requested
    }
}
