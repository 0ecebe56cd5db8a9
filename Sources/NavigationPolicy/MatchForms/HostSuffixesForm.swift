/// `match.hosts` suffixes (`*.example.com`): the request's host is a proper subdomain.
enum HostSuffixesForm {
    static let description = MatchFormDescription(
        form: .hostSuffixes, configKey: "hosts", place: .match, field: .hosts, storage: ["hosts"],
        normalisation: "`*.` then a name, the name normalised as a host name",
        predicate: "a proper parent domain of the request's host equals the suffix", reads: .host,
        index: .keyed(rank: 0), automaton: .none, image: .sortedKeyTable(flag: 1), analysis: .regions(.host))

    /// The reference predicate for one normalised suffix.
    @inline(__always)
    static func holds(_ suffix: String, _ request: CanonicalRequest) -> Bool {
        guard let host = request.matchHostForm else { return false }
        return MatchHost.anyParentDomain(of: host) { $0 == suffix }
    }
}
