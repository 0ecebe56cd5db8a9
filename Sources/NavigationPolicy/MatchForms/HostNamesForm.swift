/// `match.hosts` names (`pay.example.com`): the request's host is this name.
enum HostNamesForm {
    static let description = MatchFormDescription(
        form: .hostNames, configKey: "hosts", place: .match, field: .hosts, storage: ["hosts"],
        normalisation: "HostPattern.parse: the URL parser's host (IDNA, lower case), without a trailing dot",
        predicate: "the request's host in match form equals the name", reads: .host, index: .keyed(rank: 0),
        automaton: .none, image: .sortedKeyTable(flag: 1), analysis: .regions(.host))

    /// The reference predicate for one normalised name.
    @inline(__always)
    static func holds(_ host: String, _ request: CanonicalRequest) -> Bool {
        request.matchHostForm.map { $0 == host } ?? false
    }
}
