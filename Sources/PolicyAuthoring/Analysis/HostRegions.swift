/// The host field cut into regions: the atoms of the sets the chain's `hosts` entries
/// (exact names, `*.` wildcards, ranges, classes) generate, each with a concrete host.
///
/// Completeness (every non-empty atom gets a witness) rests on what a host entry can see:
/// a name is tested for equality, for a parent domain and for `localhost`; an address for
/// membership in intervals. So the candidates are every exact host, every wildcard suffix with
/// and without a fresh label under it, `localhost` names, a fresh name, and for addresses the
/// start of every elementary interval between range boundaries. Membership of each candidate
/// is then computed with the engine's own host forms (``MatchHost``, ``HostAddress``), and
/// candidates with the same membership are one region.
struct HostRegions {
    /// A concrete host per region (in match form); nil for the "no host" region.
    var witnesses: [String?] = []
    /// Regions only a non-special scheme's (opaque) host reaches: an address spelled another
    /// way (`myapp://0x7f.0.0.1/` is in `127.0.0.0/8` but is not the exact host `127.0.0.1`),
    /// or a name with its trailing dot kept (`myapp://localhost./`).
    var plainOnly: [Bool] = []
    /// Term number → regions where it holds (ascending).
    var termRegions: [[Int32]] = []
    /// Regions whose witness has a port (``noPortTerm()``): only a scheme other than `file:` has one.
    var hasPort: [Bool] = []

    /// The term "the URL's port is empty" (a `urlPatterns` port of `""`), once one is asked for:
    /// then every host region gets a twin with a port (`host:1`), since only such patterns read
    /// the port and they need both kinds of request told apart.
    private(set) var portTerm: Int32?

    private var exact: [String: Int32] = [:]
    private var wildcard: [String: Int32] = [:]
    private var ranges: [(AddressRange, Int32)] = []
    private var rangeIDs: [AddressRange: Int32] = [:]
    private var classes: [(AddressClass, Int32)] = []
    private var classIDs: [AddressClass: Int32] = [:]
    private var termCount: Int32 = 0

    /// The term number of a host entry, registering it on first sight.
    mutating func term(_ test: MatchEntry.Test) -> Int32? {
        func next() -> Int32 {
            termCount += 1
            return termCount - 1
        }
        switch test {
        case .host(let host):
            if let id = exact[host] { return id }
            let id = next()
            exact[host] = id
            return id
        case .hostWildcard(let suffix):
            if let id = wildcard[suffix] { return id }
            let id = next()
            wildcard[suffix] = id
            return id
        case .hostRange(let range):
            if let id = rangeIDs[range] { return id }
            let id = next()
            rangeIDs[range] = id
            ranges.append((range, id))
            return id
        case .hostClass(let addressClass):
            if let id = classIDs[addressClass] { return id }
            let id = next()
            classIDs[addressClass] = id
            classes.append((addressClass, id))
            return id
        default:
            return nil
        }
    }

    /// The term number of "the port is empty", registering it on first sight.
    mutating func noPortTerm() -> Int32 {
        if let portTerm { return portTerm }
        termCount += 1
        portTerm = termCount - 1
        return termCount - 1
    }

    /// Computes the regions once every term is registered.
    mutating func build(fresh: String) {
        // Readable witnesses first: a region's witness is the first candidate that lands in it.
        var candidates = exact.keys.sorted()
        for suffix in wildcard.keys.sorted() { candidates += ["\(fresh).\(suffix)", suffix] }
        candidates += ["\(fresh).example", fresh, "localhost", "\(fresh).localhost"]
        candidates += Self.addressWitnesses(ranges.map(\.0) + AddressClass.allCases.flatMap(\.ranges), exact.keys)
        var bySignature: [[Int32]: Int32] = [:]
        termRegions = Array(repeating: [], count: Int(termCount))
        witnesses = []
        for candidate in candidates {
            guard let signature = self.signature(of: candidate, scheme: "http"), bySignature[signature] == nil else { continue }
            add(candidate, signature, plainOnly: false, &bySignature)
        }
        // Opaque hosts keep their spelling: other spellings of listed addresses and names.
        var opaque = ["localhost.", "\(fresh).localhost."] + exact.keys.sorted().map { $0 + "." }
        opaque += exact.keys.sorted().compactMap(Self.hexSpelling)
        for candidate in opaque {
            guard let signature = self.signature(of: candidate, scheme: "qzscheme"), bySignature[signature] == nil
            else { continue }
            add(candidate, signature, plainOnly: true, &bySignature)
        }
        // Last, so witnesses prefer a URL with a host: no host at all (only a non-special scheme has that).
        witnesses.append(nil)
        plainOnly.append(true)
        hasPort.append(false)
        if let portTerm { termRegions[Int(portTerm)].append(Int32(witnesses.count - 1)) }
    }

    /// Adds the region of a host candidate and, when a pattern reads the port, its twin with
    /// a port: the twin has every term the host has but "the port is empty". Port 1 is no
    /// scheme's default, so the URL keeps it.
    private mutating func add(
        _ candidate: String, _ signature: [Int32], plainOnly opaque: Bool, _ bySignature: inout [[Int32]: Int32]
    ) {
        let withoutPort = portTerm.map { (signature + [$0]).sorted() } ?? signature
        for (text, terms, port) in [(candidate, withoutPort, false), (candidate + ":1", signature, true)] {
            if port && portTerm == nil { continue }
            guard bySignature[terms] == nil else { continue }
            let region = Int32(witnesses.count)
            bySignature[terms] = region
            witnesses.append(text)
            plainOnly.append(opaque)
            hasPort.append(port)
            for term in terms { termRegions[Int(term)].append(region) }
        }
    }

    /// The terms that hold for a host, by the engine's own reading of `http://host/`; nil when
    /// the candidate is not a host (it then stands for no request).
    private func signature(of candidate: String, scheme: String) -> [Int32]? {
        guard let url = try? URLRecord.parse("\(scheme)://\(candidate)/"), let host = MatchHost.form(of: url) else {
            return nil
        }
        var terms: [Int32] = []
        if let id = exact[String(host)] { terms.append(id) }
        if !wildcard.isEmpty {
            _ = MatchHost.anyParentDomain(of: host) { parent in
                if let id = wildcard[String(parent)] { terms.append(id) }
                return false
            }
        }
        switch HostAddress(host, of: url) {
        case .address(let address):
            for (range, id) in ranges where range.contains(address) { terms.append(id) }
            for (addressClass, id) in classes where addressClass.contains(address) { terms.append(id) }
        case .localhostName:
            for (addressClass, id) in classes where addressClass.coversLocalhostNames { terms.append(id) }
        case .name:
            break
        }
        return terms.sorted()
    }

    /// A host for the start of each elementary interval of the ranges (and exact addresses),
    /// skipping the blocks the engine folds to IPv4 (translated `::ffff:0:0:0/96`, NAT64
    /// `64:ff9b::/96`): no host has those addresses as such.
    private static func addressWitnesses(_ ranges: [AddressRange], _ exactHosts: some Sequence<String>) -> [String] {
        var points: Set<IPAddress> = [IPAddress(high: 0, low: 0), IPAddress(ipv4: 0), IPAddress(ipv4: 0x0808_0808)]
        let folded = [
            AddressRange(base: IPAddress(high: 0, low: 0xFFFF_0000_0000_0000), prefixLength: 96),
            AddressRange(base: IPAddress(high: 0x0064_FF9B_0000_0000, low: 0), prefixLength: 96),
        ]
        for range in ranges + folded {
            points.insert(range.base)
            if let after = successor(last(of: range)) { points.insert(after) }
        }
        for host in exactHosts {
            guard let url = try? URLRecord.parse("http://\(host)/"), let form = MatchHost.form(of: url),
                case .address(let address) = HostAddress(form, of: url)
            else { continue }
            points.insert(address)
            if let after = successor(address) { points.insert(after) }
        }
        return points.sorted().compactMap { point in
            if folded.contains(where: { $0.contains(point) }) { return nil }
            return point.isIPv4 ? point.description : "[\(point.description)]"
        }
    }

    /// An IPv4 host with its first part in hex (`127.0.0.1` → `0x7f.0.0.1`), nil for other hosts.
    private static func hexSpelling(_ host: String) -> String? {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, let first = parts.first.flatMap({ Int($0) }), parts.allSatisfy({ Int($0) != nil }) else {
            return nil
        }
        return "0x" + String(first, radix: 16) + "." + parts.dropFirst().joined(separator: ".")
    }

    private static func last(of range: AddressRange) -> IPAddress {
        let length = range.prefixLength
        let highHost: UInt64 = length >= 64 ? 0 : (UInt64.max >> UInt64(length))
        let lowHost: UInt64 = length >= 128 ? 0 : (length <= 64 ? .max : UInt64.max >> UInt64(length - 64))
        return IPAddress(high: range.base.high | highHost, low: range.base.low | lowHost)
    }

    private static func successor(_ address: IPAddress) -> IPAddress? {
        if address.low < .max { return IPAddress(high: address.high, low: address.low + 1) }
        if address.high < .max { return IPAddress(high: address.high + 1, low: 0) }
        return nil
    }
}
