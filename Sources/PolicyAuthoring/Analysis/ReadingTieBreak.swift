/// Whether two chains that decide every single reading alike also combine the readings of one
/// request alike.
///
/// The regions model one reading at a time. A request can have several (an encoded separator's
/// decoded paths, a port the client chose, the standard readings of `urlPatterns`:
/// ``CanonicalRequest/otherReadings(forURLPatterns:)``), and when two of them cancel with
/// different outcomes the engine reports the handler first in chain order
/// (``CompiledPolicy/combining(_:_:request:explain:decodedPath:secondForm:)``). Two chains
/// equal on every reading can still break that tie apart: `/a/b` cancelled by `x` and `/a%2Fb`
/// by `y`, in one order in one chain and the other order in the other, decide the request
/// `/a%2Fb` with `x` in one and `y` in the other (found while writing the differential harness,
/// whose corpus holds it; a reordering of handlers whose regions do not meet was taken as alike, ``ChainOrder``).
///
/// Every other combination is the same function of the readings' outcomes in both chains: a
/// cancel beats an allow, and two allows give the plain reading's. The readings of one request
/// differ only in its path (and in what `urlPatterns` read, which the boxes leave out), so two
/// handlers can both decide readings of one request only when their boxes meet outside the
/// path. So the combined decisions agree when both chains rank the cancel outcomes alike: each
/// chain's enforcing cancelling handlers that meet, outside the path, one with another outcome
/// (and a cancelling default, which meets every one, last), grouped by outcome, occupy spans of
/// positions that do not interleave, and the outcomes both chains have come in the same order.
/// An outcome only one chain has never decides a reading there (the readings decide alike), so
/// it is left out. The same chain, or one with only shadow handlers and unreachable copies changed
/// (``PolicyAnalysis/sameChain(_:_:comparingNames:)``), breaks every tie alike.
enum ReadingTieBreak {
    /// The most cancelling handlers a chain may have for every pair of them to be compared.
    static let pairLimit = 2_000

    /// Nil when the two chains combine every request's readings alike; else why not decided.
    static func unknownReason(
        _ first: CompiledPolicy, _ second: CompiledPolicy, outcomes: (first: [HandlerOutcome], second: [HandlerOutcome]),
        defaults: (first: HandlerOutcome, second: HandlerOutcome), boxes: (first: [[RegionSet]], second: [[RegionSet]]),
        comparingNames: Bool, mayDecide: (first: [Bool], second: [Bool])? = nil
    ) -> String? {
        if PolicyAnalysis.sameChain(first, second, comparingNames: comparingNames) { return nil }
        guard let one = ranks(first, outcomes.first, defaults.first, boxes.first, mayDecide?.first),
            let other = ranks(second, outcomes.second, defaults.second, boxes.second, mayDecide?.second)
        else {
            return "a request with two readings (an encoded separator, a port the client chose, the standard reading of "
                + "urlPatterns) that both cancel is decided by the handler first in the chain, and a chain mixes the "
                + "positions of cancelling handlers with different outcomes; not decided exactly"
        }
        // The outcomes both have, in the first chain's order: their ranks must rise in the second's too.
        let shared = one.filter { other[$0.key] != nil }.sorted { $0.value < $1.value }.compactMap { other[$0.key] }
        guard zip(shared, shared.dropFirst()).allSatisfy({ $0 < $1 }) else {
            return "a request with two readings (an encoded separator, a port the client chose, the standard reading of "
                + "urlPatterns) that both cancel is decided by the handler first in the chain, and the chains order "
                + "their cancelling outcomes differently; not decided exactly"
        }
        return nil
    }

    /// Each cancel outcome's rank in chain order, or nil when two outcomes' spans interleave.
    /// `mayDecide` (nil: all may) leaves out handlers proven to decide no request: such a handler
    /// decides no reading either when no handler has `urlPatterns` (see ``readingsArePlainRequests(_:_:)``).
    private static func ranks(
        _ policy: CompiledPolicy, _ outcomes: [HandlerOutcome], _ fallback: HandlerOutcome, _ boxes: [[RegionSet]],
        _ mayDecide: [Bool]?
    ) -> [String: Int]? {
        let cancelling = policy.links.indices.filter {
            !policy.links[$0].isShadow && outcomes[$0].verdict == .cancel && mayDecide?[$0] ?? true
        }
        // Boxes without their path: what two readings of one request share.
        let pathless = cancelling.map { position in
            var box = boxes[position]
            box[AnalysisDomain.path] = nil
            return box
        }
        // Every pair is compared; past this many, every cancelling handler takes part (fewer proofs, none wrong).
        let paired = cancelling.count <= Self.pairLimit
        // A cancelling default meets every handler whose outcome is another.
        var takesPart = cancelling.map { !paired || (fallback.verdict == .cancel && outcomes[$0] != fallback) }
        if paired {
            for one in cancelling.indices {
                for other in cancelling.indices where other > one && (!takesPart[one] || !takesPart[other]) {
                    guard outcomes[cancelling[one]] != outcomes[cancelling[other]],
                        BoxSearch.intersects(pathless[one], pathless[other])
                    else { continue }
                    takesPart[one] = true
                    takesPart[other] = true
                }
            }
        }
        var spans: [String: (first: Int, last: Int)] = [:]
        func add(_ outcome: HandlerOutcome, at position: Int) {
            // Equal outcomes describe alike: a key without making the location template hashable.
            let key = String(describing: outcome)
            let span = spans[key] ?? (position, position)
            spans[key] = (span.first, position)
        }
        for (index, position) in cancelling.enumerated() where takesPart[index] { add(outcomes[position], at: position) }
        if fallback.verdict == .cancel { add(fallback, at: policy.links.count) }
        let ordered = spans.sorted { $0.value.first < $1.value.first }
        for (earlier, later) in zip(ordered, ordered.dropFirst()) where later.value.first < earlier.value.last {
            return nil
        }
        var ranks: [String: Int] = [:]
        for (rank, span) in ordered.enumerated() { ranks[span.key] = rank }
        return ranks
    }

    /// Whether every reading of every request is, to both chains, a plain request of its own:
    /// true when no handler has `urlPatterns` (the one condition a reading's standard spelling
    /// changes; `ReadingsPremiseTests`). Then a handler the reachability analysis proves decides no
    /// request decides no reading either, and may be left out of the tie (``ranks``): a chain
    /// whose unreachable handler sits between two outcomes' spans no longer loses its proof.
    static func readingsArePlainRequests(_ first: CompiledPolicy, _ second: CompiledPolicy) -> Bool {
        (first.links + second.links).allSatisfy { $0.matcher.urlPatterns == nil }
    }
}
