/// `match.hosts` classes (`@loopback`, `@private`): the request's host is an address of the
/// class, or (for loopback) a `localhost` name.
enum HostClassesForm {
    static let description = MatchFormDescription(
        form: .hostClasses, configKey: "hosts", place: .match, field: .hosts, storage: ["hosts"],
        normalisation: "AddressClass: `@` and a class name",
        predicate: "the request's host, read as an address in any spelling, is in one of the class's ranges, "
            + "or is a localhost name and the class covers them",
        reads: .host, index: .keyed(rank: 0), automaton: .none, image: .jsonBesideTable, analysis: .regions(.host))

    /// The reference predicate for one class.
    @inline(__always)
    static func holds(_ addressClass: AddressClass, _ request: CanonicalRequest) -> Bool {
        guard let host = request.matchHostForm else { return false }
        switch HostAddress(host, of: request.url) {
        case .address(let address): return addressClass.contains(address)
        case .localhostName: return addressClass.coversLocalhostNames
        case .name: return false
        }
    }
}
