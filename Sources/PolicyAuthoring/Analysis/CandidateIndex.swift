/// Earlier enforcing handlers that can share a request with a box, found through the host
/// field (the one that tells most handlers apart) instead of a scan of the whole chain.
struct CandidateIndex {
    private let domain: AnalysisDomain
    private let enforcing: [Bool]
    /// Host region → enforcing handlers whose hosts accept it, ascending.
    private(set) var byHost: [[Int]]
    /// Enforcing handlers without a host condition, ascending.
    private(set) var anyHost: [Int] = []

    init(domain: AnalysisDomain, enforcing: [Bool]) {
        self.domain = domain
        self.enforcing = enforcing
        byHost = Array(repeating: [], count: domain.sizes[AnalysisDomain.host])
        for (position, box) in domain.boxes.enumerated() where position < enforcing.count && enforcing[position] {
            if let hosts = box[AnalysisDomain.host] {
                for region in hosts { byHost[Int(region)].append(position) }
            } else {
                anyHost.append(position)
            }
        }
    }

    /// Enforcing handlers before `position` whose box meets `box`, ascending.
    func earlier(than position: Int, intersecting box: [RegionSet]) -> [Int] {
        var found: Set<Int> = []
        var result: [Int] = []
        func consider(_ candidate: Int) {
            guard candidate < position, !found.contains(candidate) else { return }
            found.insert(candidate)
            if BoxSearch.intersects(domain.boxes[candidate], box) { result.append(candidate) }
        }
        if let hosts = box[AnalysisDomain.host] {
            for region in hosts {
                for candidate in byHost[Int(region)] {
                    if candidate >= position { break }
                    consider(candidate)
                }
            }
        } else {
            for list in byHost {
                for candidate in list {
                    if candidate >= position { break }
                    consider(candidate)
                }
            }
        }
        for candidate in anyHost {
            if candidate >= position { break }
            consider(candidate)
        }
        return result.sorted()
    }
}
