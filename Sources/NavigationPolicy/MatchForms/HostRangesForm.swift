/// `match.hosts` ranges (`10.0.0.0/8`, `::1/128`): the request's host is an address in the range.
enum HostRangesForm {
    static let description = MatchFormDescription(
        form: .hostRanges, configKey: "hosts", place: .match, field: .hosts, storage: ["hosts"],
        normalisation: "AddressRange: a CIDR range, its address bits past the prefix zero",
        predicate: "the request's host, read as an address in any spelling (0x7f.1, [::ffff:127.0.0.1]), is in the range",
        reads: .host, index: .keyed(rank: 0), automaton: .none, image: .jsonBesideTable, analysis: .regions(.host))

    /// The reference predicate for one range.
    @inline(__always)
    static func holds(_ range: AddressRange, _ request: CanonicalRequest) -> Bool {
        guard let host = request.matchHostForm, case .address(let address) = HostAddress(host, of: request.url)
        else { return false }
        return range.contains(address)
    }
}
