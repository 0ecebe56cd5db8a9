/// The two searches every analysis question reduces to, over ``AnalysisDomain`` boxes.
///
/// Both split a box field by field (host, path, scheme, method, navigation type, target frame)
/// into classes of regions that the remaining candidate handlers treat alike, so the work is
/// proportional to the distinct situations the chain creates, never to the cross product of
/// all regions: a decision diagram built lazily, one question at a time.
struct BoxSearch {
    let domain: AnalysisDomain
    /// The run's one budget, shared with everything else the run does (``AnalysisBudget``).
    let meter: AnalysisBudget
    /// Steps left before the search gives up (an answer is then "unknown").
    var budget: Int {
        get { meter.remaining }
        nonmutating set { meter.spend(meter.remaining - newValue) }
    }

    enum Cover {
        /// Every request in the box is decided by a candidate (or the box holds no request).
        case covered
        case uncovered(NavigationRequest)
        case exhausted
    }

    /// Whether the candidates (boxes in chain order) together contain every request in `box`;
    /// the candidates used are added to `chosen`, preferring ones already chosen and those
    /// without general path patterns, so the cover is small and, where possible, exact.
    mutating func cover(
        _ box: [RegionSet], _ candidates: [Int], boxes: [[RegionSet]], avoid: [Bool], chosen: inout Set<Int>,
        field: Int = 0
    ) -> Cover {
        budget -= 1 + candidates.count
        if budget < 0 { return .exhausted }
        var containing: Int?
        for candidate in candidates where Self.contains(boxes[candidate], box, from: field) {
            if chosen.contains(candidate) {
                containing = candidate
                break
            }
            if containing == nil || (avoid[containing ?? candidate] && !avoid[candidate]) { containing = candidate }
        }
        if let containing {
            chosen.insert(containing)
            return .covered
        }
        guard !candidates.isEmpty, field < AnalysisDomain.fieldCount else {
            return domain.witness(in: box).map(Cover.uncovered) ?? .covered
        }
        // Candidates that do not name this field accept all of it: if they cover the box
        // alone, no split on this field is needed. That keeps a cover small (two method rules,
        // not every path rule that also covers a part) and skips one class per host of every
        // earlier host rule. Otherwise the full split decides, so nothing is lost but steps.
        let universal = candidates.filter { boxes[$0][field] == nil && !avoid[$0] }
        if !universal.isEmpty, universal.count < candidates.count {
            var tried = chosen
            if case .covered = cover(box, universal, boxes: boxes, avoid: avoid, chosen: &tried, field: field + 1) {
                chosen = tried
                return .covered
            }
            if budget < 0 { return .exhausted }
        }
        for (regions, members) in split(box, candidates, boxes: boxes, field: field) {
            var narrowed = box
            narrowed[field] = regions
            switch cover(narrowed, members, boxes: boxes, avoid: avoid, chosen: &chosen, field: field + 1) {
            case .covered: continue
            case let other: return other
            }
        }
        return .covered
    }

    /// Calls `visit` with each maximal sub-box on which both chains' first matching candidate
    /// is fixed (nil: none matches, the default applies); `visit` returns false to stop.
    ///
    /// With `alike` (a first-chain and a second-chain candidate with the same box and the
    /// same outcome), sub-boxes where the two candidate lists provably decide alike are not
    /// visited: when they are the same list up to reordering handlers that share no request
    /// (``ChainOrder/decideAlike(_:_:alike:boxes:)``), and, unless `defaultsAlike`, each list
    /// ends with a handler that matches the whole sub-box (else the two defaults decide the
    /// requests no handler matches, differently). Without it, two similar chains of n
    /// handlers with host and path rules would be walked over every host × path pair.
    mutating func explore(
        _ box: [RegionSet], _ first: [Int], _ second: [Int], firstBoxes: [[RegionSet]], secondBoxes: [[RegionSet]],
        field: Int = 0, defaultsAlike: Bool = true, alike: ((Int, Int) -> Bool)? = nil,
        visit: (_ box: [RegionSet], _ first: Int?, _ second: Int?) -> Bool
    ) -> Bool {
        budget -= 1 + first.count + second.count
        if budget < 0 { return false }
        let firstFixed = Self.fixed(first, firstBoxes, box, field)
        let secondFixed = Self.fixed(second, secondBoxes, box, field)
        if case .fixed(let one) = firstFixed, case .fixed(let other) = secondFixed { return visit(box, one, other) }
        guard field < AnalysisDomain.fieldCount else { return true }
        // Candidates after one that matches the whole sub-box never decide in it.
        let first = ChainOrder.upToFirstContaining(first, firstBoxes, box, from: field)
        let second = ChainOrder.upToFirstContaining(second, secondBoxes, box, from: field)
        if let alike, ChainOrder.decideAlike(first, second, alike: alike, boxes: firstBoxes),
            defaultsAlike
                || ((first.last.map { Self.contains(firstBoxes[$0], box, from: field) } ?? false)
                    && (second.last.map { Self.contains(secondBoxes[$0], box, from: field) } ?? false))
        {
            return true
        }
        // Both chains' candidates, tagged by chain, split together so the classes are common.
        let tagged = first.map { $0 } + second.map { -1 - $0 }
        let boxes = { (tag: Int) in tag >= 0 ? firstBoxes[tag] : secondBoxes[-1 - tag] }
        for (regions, members) in split(box, tagged, boxOf: boxes, field: field) {
            var narrowed = box
            narrowed[field] = regions
            let keepGoing = explore(
                narrowed, members.filter { $0 >= 0 }, members.filter { $0 < 0 }.map { -1 - $0 },
                firstBoxes: firstBoxes, secondBoxes: secondBoxes, field: field + 1, defaultsAlike: defaultsAlike,
                alike: alike, visit: visit)
            if !keepGoing { return false }
        }
        return true
    }

    private enum Decider {
        /// The first candidate decides the whole box (nil: no candidate, the default does).
        case fixed(Int?)
        case mixed
    }

    private static func fixed(_ candidates: [Int], _ boxes: [[RegionSet]], _ box: [RegionSet], _ field: Int) -> Decider {
        guard let head = candidates.first else { return .fixed(nil) }
        return contains(boxes[head], box, from: field) ? .fixed(head) : .mixed
    }

    /// Whether `outer` contains `inner` on every field from `field` on.
    static func contains(_ outer: [RegionSet], _ inner: [RegionSet], from field: Int) -> Bool {
        for index in field..<AnalysisDomain.fieldCount {
            guard let outerSet = outer[index] else { continue }
            guard let innerSet = inner[index] else { return false }
            if !RegionSets.isSubset(innerSet, of: outerSet) { return false }
        }
        return true
    }

    /// Whether two boxes share a region on every field.
    static func intersects(_ first: [RegionSet], _ second: [RegionSet]) -> Bool {
        for index in 0..<AnalysisDomain.fieldCount where !RegionSets.intersects(first[index], second[index]) {
            return false
        }
        return true
    }

    private func split(_ box: [RegionSet], _ candidates: [Int], boxes: [[RegionSet]], field: Int)
        -> [([Int32], [Int])]
    {
        split(box, candidates, boxOf: { boxes[$0] }, field: field)
    }

    /// The regions of `box` on `field` grouped by which candidates accept them (candidates kept
    /// in order), infeasible regions left out: an opaque path needs no host, no host needs a
    /// scheme that is not special. Host classes keep "no host" apart, so later fields see a
    /// box whose hosts are all present or all absent.
    private func split(_ box: [RegionSet], _ candidates: [Int], boxOf: (Int) -> [RegionSet], field: Int)
        -> [([Int32], [Int])]
    {
        var regions = box[field] ?? (0..<Int32(domain.sizes[field])).map { $0 }
        let hostRegions = box[AnalysisDomain.host]
        if field == AnalysisDomain.path, let hostRegions, !hostRegions.contains(where: domain.isNoHost) {
            regions.removeAll(where: domain.isOpaquePath)
        }
        if field == AnalysisDomain.scheme, let hostRegions, hostRegions.allSatisfy(domain.needsPlainScheme) {
            regions.removeAll(where: domain.isSpecialScheme)
        }
        // Counted with the run's budget: this work grows with the regions and the candidates' lists.
        meter.spend(regions.count + candidates.reduce(0) { $0 + min(boxOf($1)[field]?.count ?? 0, regions.count) })
        var universal: [Int] = []
        var accepting: [Int32: [Int]] = [:]
        let regionSet = regions.count > 8 ? Set(regions) : nil
        for candidate in candidates {
            guard let accepted = boxOf(candidate)[field] else {
                universal.append(candidate)
                continue
            }
            if let regionSet, accepted.count < regions.count {
                for region in accepted where regionSet.contains(region) { accepting[region, default: []].append(candidate) }
            } else {
                for region in regions where RegionSets.contains(accepted, region) {
                    accepting[region, default: []].append(candidate)
                }
            }
        }
        var classes: [[Int]: [Int32]] = [:]
        var order: [[Int]] = []
        for region in regions {
            var key = accepting[region] ?? []
            // Host classes keep apart what only a non-special scheme reaches, and "no host" itself.
            if field == AnalysisDomain.host, domain.needsPlainScheme(region) { key.append(Int.min) }
            if field == AnalysisDomain.host, domain.isNoHost(region) { key.append(Int.min + 1) }
            if classes[key] == nil { order.append(key) }
            classes[key, default: []].append(region)
        }
        return order.map { key in
            let members = (universal + key.filter { $0 > Int.min + 1 }).sorted { Self.position($0) < Self.position($1) }
            return (classes[key] ?? [], members)
        }
    }

    /// Chain order of a tagged candidate (first chain ≥ 0, second chain < 0: compared within a chain only).
    private static func position(_ tag: Int) -> Int { tag >= 0 ? tag : -1 - tag }
}
