/// The one bound on the work of one analysis run (a reachability report, a comparison or a
/// query), shared by every part of it that grows with the input: building the regions,
/// collecting candidates, the box searches and re-deciding witnesses.
///
/// Before, each search had its own count and domain construction, candidate collection and
/// re-decisions were not counted at all, so a 2,000-handler body to `POST /v1/policy/analyze`
/// ran 97 s against a documented bound of about one second (outside attack 7, F4). A class,
/// so the searches, which are value types, all draw on the same count.
final class AnalysisBudget {
    /// Steps left; below zero the run is over and every answer still open is "unknown".
    private(set) var remaining: Int
    /// Steps charged so far (reported with the answer, so the bound can be checked without
    /// timing): above the bound exactly when the bound stopped the run, and then at most one
    /// step of the search (or one re-decision) over it.
    private(set) var spent = 0
    /// Whether the caller stopped the run (its client left, or the daemon is shutting down).
    private(set) var cancelled = false
    private let isCancelled: (@Sendable () -> Bool)?
    /// Steps until the cancellation flag is read again: reading it is cheap, but not free.
    private var untilCheck = 0

    init(steps: Int, isCancelled: (@Sendable () -> Bool)? = nil) {
        remaining = steps
        self.isCancelled = isCancelled
    }

    /// Spends `steps`; false once the budget is used up or the run was cancelled.
    @discardableResult
    func spend(_ steps: Int) -> Bool {
        // Once over, nothing more is done, so nothing more is counted.
        guard remaining >= 0 else { return false }
        remaining -= steps
        spent += steps
        untilCheck -= steps
        if untilCheck < 0, let isCancelled {
            untilCheck = 65_536
            if isCancelled() {
                cancelled = true
                remaining = min(remaining, -1)
            }
        }
        return remaining >= 0
    }

    /// Whether the run must stop.
    var isExhausted: Bool { remaining < 0 }

    /// A budget for one phase whose failure does not end the run (it has a fallback): at most
    /// `limit` steps and half of those left, with this run's cancellation. Its spending is
    /// added here by ``absorb(_:)`` when the phase ends.
    func phase(_ limit: Int) -> AnalysisBudget {
        let phase = AnalysisBudget(steps: max(0, min(limit, remaining / 2)), isCancelled: isCancelled)
        if cancelled { phase.remaining = -1 }
        return phase
    }

    /// Charges the steps a ``phase(_:)`` spent, and its cancellation.
    func absorb(_ phase: AnalysisBudget) {
        spend(phase.spent)
        if phase.cancelled {
            cancelled = true
            remaining = min(remaining, -1)
        }
    }

    /// Why answers are unknown once the budget is exhausted.
    var reason: String {
        cancelled
            ? "the analysis was stopped before it finished (its client left or the daemon is shutting down)"
            : "the analysis ran out of steps (a bound on its time)"
    }

    /// Charges, before they are built, the regions of `matchers`: each distinct host candidate
    /// (about two per listed name and suffix, two per range boundary) is tested against every
    /// distinct range, each path candidate is parsed and tested against every pattern, then
    /// every matcher's terms are merged into its box. Charged up front so that a run the bound
    /// cannot afford stops before the work, not after it (and then has spent nothing on it).
    func chargeDomain(_ matchers: [RequestMatcher]) -> Bool {
        var names: Set<Substring> = []
        var ranges: Set<AddressRange> = []
        var pathKeys: Set<Substring> = []
        var patterns = 0
        var urlPatterns = 0
        var entries = 0
        var tableKeys = 0
        for matcher in matchers {
            if let hosts = matcher.hosts {
                names.formUnion(hosts.exact)
                names.formUnion(hosts.wildcardSuffixes)
                ranges.formUnion(hosts.ranges)
                tableKeys += (hosts.mapped?.exact.count ?? 0) + (hosts.mapped?.wildcardSuffixes.count ?? 0)
            }
            pathKeys.formUnion(matcher.paths.exact)
            pathKeys.formUnion(matcher.paths.prefixes)
            tableKeys += matcher.paths.mappedPrefixes?.table.count ?? 0
            patterns += matcher.paths.patterns.count
            urlPatterns += matcher.urlPatterns?.count ?? 0
            entries += matcher.entries.count
        }
        // Image tables are not merged into the sets above: counted as distinct, an upper bound.
        // A `urlPatterns` entry is a host term and a pathname automaton with paths of its own
        // among the candidates, estimated as a general pattern is; left out, 8,000 entries in
        // one list cost the regions seconds this estimate did not see (outside attack 14, R5).
        // What the candidates really cost is charged as they are checked (``PathRegions``).
        let generalPatterns = patterns + urlPatterns
        let hostCandidates = 2 * (names.count + tableKeys + urlPatterns) + 2 * ranges.count + 64
        let pathCandidates = 2 * (pathKeys.count + tableKeys) + 3 * generalPatterns + 4
        let cost =
            hostCandidates * (8 + ranges.count) + pathCandidates * (64 + generalPatterns) + (entries + tableKeys) * 8
        // A run that cannot afford the regions stops here, before building them, charged the
        // rest of its budget and one step more: a run the bound stopped reports more steps than
        // the bound, and still only a step over it (it reported 0, which read as a run that had
        // nothing to do; outside attack 9, F7).
        guard cost <= remaining else {
            spent += remaining + 1
            remaining = -1
            return false
        }
        return spend(cost)
    }
}

extension PolicyAnalysis {
    /// A handler's answer when the run stopped before reaching it.
    static func unknown(_ link: ChainLink, _ reason: String) -> Reachability {
        Reachability(
            name: link.name, reachable: nil, shadowedBy: [], witness: nil, unknownReason: reason, isShadow: link.isShadow)
    }
}

// Weights, from a release build under perf (2,000 handlers using every field, 2.5 s of one core
// in all): a step is about 25-30 ns. Re-deciding a witness checks the handlers the decision
// reaches (~100 ns a handler, 3 steps): the whole chain when it is scanned, only the handlers
// its index cannot file plus a few looked up when it is indexed; collecting candidates hashes
// and intersects every posting it scans (~10 ns each).
extension AnalysisBudget {
    /// Steps for one decision re-checked by the engine.
    static func decideCost(_ policy: CompiledPolicy) -> Int { 3 * policy.handlersCheckedPerDecision + 1 }
}

extension CandidateIndex {
    /// Steps for ``earlier(than:intersecting:)`` on `box`: every posting of the host regions it
    /// scans (all of them for a box without a host condition), plus the handlers without hosts.
    func cost(of box: [RegionSet]) -> Int {
        var postings = anyHost.count
        if let hosts = box[AnalysisDomain.host] {
            for region in hosts where Int(region) < byHost.count { postings += byHost[Int(region)].count }
        } else {
            postings += byHost.reduce(0) { $0 + $1.count }
        }
        return 1 + postings / 3
    }
}
