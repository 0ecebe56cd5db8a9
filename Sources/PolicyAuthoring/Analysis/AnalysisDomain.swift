/// Every field of a request cut into finitely many regions relevant to a set of matchers
/// (one or two chains, and a query), and each matcher as a box: one region set per field.
///
/// Fields are ordered host, path, scheme, method, navigation type, target frame: the analysis
/// splits on the most discriminating field first. Three combinations are not requests and
/// are never used as witnesses: no host with a special scheme (`http:` always has one), an
/// opaque path with a host, and an opaque path with a special scheme.
struct AnalysisDomain {
    static let fieldCount = 6
    static let host = 0
    static let path = 1
    static let scheme = 2
    static let method = 3
    static let navigationType = 4
    static let targetFrame = 5

    static let specialSchemes: Set<String> = ["http", "https", "ws", "wss", "ftp", "file"]

    private(set) var hosts = HostRegions()
    private(set) var paths = PathRegions()
    private(set) var schemes: [String] = []
    private(set) var methods: [String] = []
    let navigationTypes = NavigationType.allCases.map { $0 }
    let targetFrames = TargetFrame.allCases.map { $0 }
    /// One box per matcher given to ``init(matchers:)``, in that order.
    private(set) var boxes: [[RegionSet]] = []
    /// Per matcher: whether it has a general path pattern (see ``PathRegions``).
    private(set) var hasGeneralPattern: [Bool] = []
    /// Per matcher with `urlPatterns`: why its box is wider than what its patterns match in the
    /// plain reading (the box then leaves the patterns out); nil when the box is exact.
    private(set) var patternsUnmodelled: [String?] = []
    /// Boxes of matchers whose patterns were cut into regions, as they were without them.
    private var withoutPatterns: [Int: [RegionSet]] = [:]

    /// The box of a matcher with its `urlPatterns` left out (what the standard reading may match).
    func boxWithoutPatterns(_ position: Int) -> [RegionSet] { withoutPatterns[position] ?? boxes[position] }

    /// The number of regions of each field.
    var sizes: [Int] {
        [hosts.witnesses.count, paths.witnesses.count, schemes.count, methods.count, navigationTypes.count, targetFrames.count]
    }

    /// Every region of each field, ascending (a box's `nil`).
    private(set) var allRegions: [[Int32]] = []

    /// Whether path witnesses may miss atoms because handlers mix case-sensitive and case-insensitive letters.
    var casesMixed: Bool { paths.casesMixed }

    /// Why the path automaton that would have cut paths exactly did not (its state cap, the
    /// budget), as a note for "unknown" reasons; empty when it was not needed or succeeded.
    var pathAutomatonNote: String { paths.inexactReason.map { " (\($0))" } ?? "" }

    /// The fresh label witnesses are built from (also the opaque path's text).
    let fresh: String

    /// `budget` pays for the path automaton when one is needed (see ``PathRegions``).
    init(matchers: [RequestMatcher], budget: AnalysisBudget? = nil) {
        let fresh = Self.freshLabel(matchers)
        self.fresh = fresh
        var hostTerms: [[Int32]?] = []
        var pathTerms: [[(RequestMatcher.Field, Int32)]] = []
        var schemeValues: Set<String> = []
        var methodValues: Set<String> = []
        var patternTerms: [Result<[PatternTerms], URLPatternShape.Unmodelled>?] = []
        for matcher in matchers {
            let registered = matcher.urlPatterns.map { patterns in
                Self.register(patterns, hosts: &hosts, paths: &paths, schemes: &schemeValues)
            }
            patternTerms.append(registered)
            schemeValues.formUnion(matcher.schemes ?? [])
            methodValues.formUnion(matcher.methods ?? [])
            var hostList: [Int32]? = matcher.hosts == nil ? nil : []
            var pathList: [(RequestMatcher.Field, Int32)] = []
            for entry in matcher.analysisEntries {
                switch entry.field {
                case .hosts: if let id = hosts.term(entry.test) { hostList?.append(id) }
                case .paths, .pathPrefixes, .pathPatterns:
                    if let id = paths.term(entry.test, caseSensitive: matcher.paths.caseSensitive) {
                        pathList.append((entry.field, id))
                    }
                default: break
                }
            }
            hostTerms.append(hostList)
            pathTerms.append(pathList)
        }
        hosts.build(fresh: fresh)
        paths.build(fresh: fresh, budget: budget)
        // A bound that stopped the path regions half built ends the domain here, every box
        // the whole space: its callers check the budget next and answer unknown, and no box
        // reads the terms' regions, which the regions never got.
        if let budget, budget.isExhausted {
            boxes = matchers.map { _ in Array(repeating: nil, count: Self.fieldCount) }
            hasGeneralPattern = matchers.map { _ in true }
            patternsUnmodelled = matchers.map { _ in budget.reason }
            return
        }
        // The other special scheme first: witnesses are built from a region's first value.
        schemes = []
        if let other = ["https", "http", "ws", "wss", "ftp"].first(where: { !schemeValues.contains($0) }) {
            schemes.append(other)
        }
        schemes += schemeValues.sorted() + ["qzscheme"]
        // GET first: the witness of a region is built from its first value.
        methods = ["GET"] + methodValues.subtracting(["GET"]).sorted() + ["QZMETHOD"]
        for (position, matcher) in matchers.enumerated() {
            var box: [RegionSet] = Array(repeating: nil, count: Self.fieldCount)
            box[Self.host] = hostTerms[position].map { terms in Self.union(terms.map { hosts.termRegions[Int($0)] }) }
            box[Self.path] = pathBox(pathTerms[position])
            box[Self.scheme] = matcher.schemes.map { set in Self.indices(of: set, in: schemes) }
            box[Self.method] = matcher.methods.map { set in Self.indices(of: set, in: methods) }
            box[Self.navigationType] = matcher.navigationTypes.map { set in
                Self.indices(of: Set(set.map(\.rawValue)), in: navigationTypes.map(\.rawValue))
            }
            box[Self.targetFrame] = matcher.targetFrames.map { set in
                Self.indices(of: Set(set.map(\.rawValue)), in: targetFrames.map(\.rawValue))
            }
            var general = pathTerms[position].contains { paths.generalTerms.contains($0.1) }
            switch patternTerms[position] {
            case nil:
                patternsUnmodelled.append(nil)
            case .failure(let unmodelled)?:
                patternsUnmodelled.append(unmodelled.reason)
            case .success(let terms)?:
                let patternBoxes = terms.map { patternBox($0) }
                if let union = Self.union(ofBoxes: patternBoxes) {
                    let standard = Self.union(ofBoxes: terms.map { patternBox($0, standardReading: true) })
                    withoutPatterns[position] = standard.map { Self.intersection(box, $0) } ?? box
                    box = Self.intersection(box, union)
                    patternsUnmodelled.append(nil)
                    general = general || terms.contains { $0.path.map(paths.generalTerms.contains) ?? false }
                } else {
                    patternsUnmodelled.append(
                        "its urlPatterns differ from one another in more than one of scheme, host and path, "
                            + "so their union is not one box")
                }
            }
            boxes.append(box)
            hasGeneralPattern.append(general)
        }
        allRegions = sizes.map { size in (0..<Int32(size)).map { $0 } }
    }

    /// The terms one `urlPatterns` entry was registered as (``URLPatternShape``).
    struct PatternTerms {
        var schemes: [String]?
        var hosts: [Int32]?
        var noPort: Int32?
        var path: Int32?
        /// Whether no host entry ends with a dot (see ``patternBox(_:standardReading:)``).
        var hostsReadAlike = true
    }

    /// Registers every pattern of a matcher, or says why one of them is not cut into regions.
    private static func register(
        _ patterns: [URLPattern], hosts: inout HostRegions, paths: inout PathRegions, schemes: inout Set<String>
    ) -> Result<[PatternTerms], URLPatternShape.Unmodelled> {
        var registered: [PatternTerms] = []
        for pattern in patterns {
            let shape: URLPatternShape
            switch URLPatternShape.of(pattern) {
            case .success(let found): shape = found
            case .failure(let unmodelled): return .failure(unmodelled)
            }
            var terms = PatternTerms(schemes: shape.schemes, hosts: nil, noPort: nil, path: nil)
            schemes.formUnion(shape.schemes ?? [])
            if let hostTests = shape.hosts {
                terms.hosts = hostTests.compactMap { hosts.term($0) }
                terms.hostsReadAlike = !hostTests.contains { test in
                    switch test {
                    case .host(let name), .hostWildcard(let name): name.hasSuffix(".")
                    default: true
                    }
                }
            }
            if shape.noPort { terms.noPort = hosts.noPortTerm() }
            if let parts = shape.pathname {
                guard let id = paths.term(urlPatternPathname: parts, ignoreCase: shape.ignoreCase) else {
                    return .failure(
                        URLPatternShape.Unmodelled(
                            "its pathname pattern \"\(pattern.patternString("pathname") ?? "")\" is not cut into path regions"))
                }
                terms.path = id
            }
            registered.append(terms)
        }
        return .success(registered)
    }

    /// The box of one pattern over the built regions.
    /// With `standardReading`, what the pattern can match in the standard reading, in the
    /// plain reading's fields: the scheme and port read alike there, and a host pattern without
    /// a trailing dot matches a WHATWG hostname only when it matches its match form (the same
    /// string); the path and query read differently and are left out.
    private func patternBox(_ terms: PatternTerms, standardReading: Bool = false) -> [RegionSet] {
        var box: [RegionSet] = Array(repeating: nil, count: Self.fieldCount)
        box[Self.scheme] = terms.schemes.map { Self.indices(of: Set($0), in: schemes) }
        let hostTerms = standardReading && !terms.hostsReadAlike ? nil : terms.hosts
        var host: [Int32]? = hostTerms.map { ids in Self.union(ids.map { hosts.termRegions[Int($0)] }) }
        if let noPort = terms.noPort {
            let regions = hosts.termRegions[Int(noPort)]
            host = host.map { RegionSets.intersection($0, regions) } ?? regions
        }
        box[Self.host] = host
        if !standardReading { box[Self.path] = terms.path.map { paths.termRegions[Int($0)] } }
        return box
    }

    /// The union of boxes when it is a box: all equal but on at most one field. Nil otherwise.
    private static func union(ofBoxes boxes: [[RegionSet]]) -> [RegionSet]? {
        guard var result = boxes.first else { return nil }
        var differing: Int?
        for box in boxes.dropFirst() {
            for field in 0..<fieldCount where box[field] != result[field] {
                if differing != nil && differing != field { return nil }
                differing = field
                guard let one = box[field], let other = result[field] else {
                    result[field] = nil
                    continue
                }
                result[field] = union([one, other])
            }
        }
        return result
    }

    /// The field-wise intersection of two boxes.
    static func intersection(_ first: [RegionSet], _ second: [RegionSet]) -> [RegionSet] {
        zip(first, second).map { one, other -> RegionSet in
            switch (one, other) {
            case (nil, let set), (let set, nil): set
            case (let one?, let other?): RegionSets.intersection(one, other)
            }
        }
    }

    /// `paths`, `pathPrefixes` and `pathPatterns` each must hold when given: the intersection
    /// of the unions of each list's regions.
    private func pathBox(_ terms: [(RequestMatcher.Field, Int32)]) -> RegionSet {
        var result: [Int32]?
        for field in [RequestMatcher.Field.paths, .pathPrefixes, .pathPatterns] {
            let ids = terms.filter { $0.0 == field }.map(\.1)
            guard !ids.isEmpty else { continue }
            let regions = Self.union(ids.map { paths.termRegions[Int($0)] })
            result = result.map { RegionSets.intersection($0, regions) } ?? regions
        }
        return result
    }

    private static func union(_ lists: [[Int32]]) -> [Int32] {
        if lists.count == 1, let only = lists.first { return only }
        return Array(Set(lists.joined())).sorted()
    }

    private static func indices(of values: Set<String>, in domain: [String]) -> [Int32] {
        domain.indices.filter { values.contains(domain[$0]) }.map { Int32($0) }
    }

    /// A label no entry contains, so hosts and paths built from it fall under no entry by accident.
    private static func freshLabel(_ matchers: [RequestMatcher]) -> String {
        let written = matchers.flatMap { $0.analysisEntries.map { asciiLowercased($0.written) } }
        for candidate in ["qz", "qy", "qx", "zq", "zy", "xq"] where !written.contains(where: { $0.contains(candidate) }) {
            return candidate + "0"
        }
        return "qzqzqz0"
    }

    // MARK: Feasibility and witnesses

    func isSpecialScheme(_ region: Int32) -> Bool { Self.specialSchemes.contains(schemes[Int(region)]) }
    func isNoHost(_ region: Int32) -> Bool { hosts.witnesses[Int(region)] == nil }
    /// Whether only a non-special scheme reaches this host region (no host, or an opaque spelling).
    func needsPlainScheme(_ region: Int32) -> Bool { hosts.plainOnly[Int(region)] }
    func isOpaquePath(_ region: Int32) -> Bool { paths.witnesses[Int(region)] == nil }
    /// Whether the host region's requests have a port (only when a pattern reads the port).
    func hasPort(_ region: Int32) -> Bool { hosts.hasPort[Int(region)] }

    /// A concrete request in the box, or nil when the box holds no request (only infeasible
    /// combinations). Tries the regions in order and keeps the first feasible combination.
    /// With `rarity` (see ``rarity()``), regions fewer matchers accept are tried first.
    func witness(in box: [RegionSet], rarity: Rarity? = nil) -> NavigationRequest? {
        func values(_ field: Int) -> [Int32] {
            guard let rarity else { return box[field] ?? allRegions[field] }
            guard let listed = box[field] else { return rarity.order[field] }
            let counts = rarity.counts[field]
            // Stable: among equally rare regions the readable order stays.
            return listed.enumerated().sorted { left, right in
                let (one, other) = (counts[Int(left.element)], counts[Int(right.element)])
                return one != other ? one < other : left.offset < right.offset
            }.map(\.element)
        }
        let hostValues = values(Self.host)
        let pathValues = values(Self.path)
        let schemeValues = values(Self.scheme)
        guard let method = values(Self.method).first, let navigation = values(Self.navigationType).first,
            let frame = values(Self.targetFrame).first
        else { return nil }
        // Prefer a host and a hierarchical path with a special scheme; fall back to the rest.
        // Each fallback is looked for only when needed: the lists can hold every region.
        let hostKinds: [(Int32) -> Bool] = [
            { !needsPlainScheme($0) }, { needsPlainScheme($0) && !isNoHost($0) }, { isNoHost($0) },
        ]
        let pathKinds: [(Int32) -> Bool] = [{ !isOpaquePath($0) }, { isOpaquePath($0) }]
        for pathKind in pathKinds {
            guard let path = pathValues.first(where: pathKind) else { continue }
            for hostKind in hostKinds {
                // A host with a port needs a scheme other than `file:`; one of each is tried.
                for hasPort in [false, true] {
                    guard let host = hostValues.first(where: { hostKind($0) && self.hasPort($0) == hasPort }) else {
                        continue
                    }
                    if isOpaquePath(path) && !isNoHost(host) { continue }
                    let needsPlain = needsPlainScheme(host)
                    guard
                        let scheme = schemeValues.first(where: {
                            (!needsPlain || !isSpecialScheme($0)) && !(hasPort && schemes[Int($0)] == "file")
                        })
                    else { continue }
                    return request(host: host, path: path, scheme: scheme, method: method, navigation: navigation, frame: frame)
                }
            }
        }
        return nil
    }

    /// Per field and region: how many matchers name the field and accept the region. A
    /// witness built from rare regions falls under few earlier handlers, so it usually
    /// reaches the handler it was built for.
    func rarity() -> Rarity {
        var counts = sizes.map { [Int](repeating: 0, count: $0) }
        for box in boxes {
            for field in 0..<Self.fieldCount {
                for region in box[field] ?? [] { counts[field][Int(region)] += 1 }
            }
        }
        let order = counts.map { fieldCounts in
            fieldCounts.indices.sorted { fieldCounts[$0] != fieldCounts[$1] ? fieldCounts[$0] < fieldCounts[$1] : $0 < $1 }
                .map { Int32($0) }
        }
        return Rarity(counts: counts, order: order)
    }

    /// How many matchers accept each region, and each field's regions rarest first.
    struct Rarity {
        var counts: [[Int]]
        var order: [[Int32]]
    }

    private func request(host: Int32, path: Int32, scheme: Int32, method: Int32, navigation: Int32, frame: Int32)
        -> NavigationRequest
    {
        let schemeText = schemes[Int(scheme)]
        let pathText = paths.witnesses[Int(path)] ?? fresh
        let url: String =
            if let hostText = hosts.witnesses[Int(host)] {
                "\(schemeText)://\(hostText)\(pathText)"
            } else {
                "\(schemeText):\(pathText)"
            }
        return NavigationRequest(
            url: url, method: methods[Int(method)], navigationType: navigationTypes[Int(navigation)],
            targetFrame: targetFrames[Int(frame)])
    }
}
