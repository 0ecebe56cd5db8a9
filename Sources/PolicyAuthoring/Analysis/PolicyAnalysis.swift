/// Exact answers about what a compiled chain does: which handlers can decide, whether two
/// chains decide alike, and whether any request of a kind can reach a decision or a handler.
///
/// The request space is cut into regions per field (``AnalysisDomain``), and questions are
/// answered over boxes of regions (``BoxSearch``). Every witness and counterexample is decided
/// again by the real engine before it is returned; one that does not behave as the analysis
/// says turns the answer into "unknown" rather than a wrong one. Claims that no request
/// exists rest on the regions being complete, which they are for every match form except
/// general path patterns and mixed case sensitivity: those are reported as unknown, with why.
public enum PolicyAnalysis {
    /// Bounds on one analysis: a request body to `POST /v1/policy/analyze` is a client's input.
    public struct Limits: Sendable {
        /// Search steps (one per box visited, plus its candidates) before answers become unknown.
        public var steps: Int
        /// At most this many counterexamples are re-checked and listed (the total is still counted).
        public var counterexamples: Int
        /// Read now and then during the run; true stops it, and open answers become unknown
        /// (the endpoint's client left, or the daemon is shutting down).
        public var isCancelled: (@Sendable () -> Bool)?

        public init(steps: Int = 200_000_000, counterexamples: Int = 20, isCancelled: (@Sendable () -> Bool)? = nil) {
            self.steps = steps
            self.counterexamples = counterexamples
            self.isCancelled = isCancelled
        }
    }

    /// What the analysis says about one handler.
    public struct Reachability: Sendable {
        public var name: String
        /// true: a witness reaches it; false: proven never to decide (or, for a shadow handler,
        /// never to be consulted); nil: unknown, see ``unknownReason``.
        public var reachable: Bool?
        /// Earlier enforcing handlers that together match every request it matches.
        public var shadowedBy: [String]
        public var witness: NavigationRequest?
        public var unknownReason: String?
        public var isShadow: Bool
    }

    /// One request two chains decide differently.
    public struct Counterexample: Sendable {
        public var request: NavigationRequest
        public var first: Decision
        public var second: Decision
    }

    /// The comparison of two chains.
    public struct Equivalence: Sendable {
        /// true: same decision, action and location (and handler, when compared) for every request;
        /// false: the counterexamples prove otherwise; nil: unknown, see ``unknownReasons``.
        public var equivalent: Bool?
        public var counterexamples: [Counterexample]
        /// Regions where the chains differ (each has a counterexample; at most ``Limits/counterexamples`` are listed).
        public var differingRegions: Int
        public var unknownReasons: [String]
        /// Steps the run spent (at most a little over ``Limits/steps``; over it exactly when the bound stopped the run).
        public var steps = 0
    }

    /// What a query asks a request to reach.
    public enum Target: Sendable, Equatable {
        case verdict(Decision.Verdict)
        case handler(String)
    }

    /// The answer to a query.
    public struct QueryAnswer: Sendable {
        /// true with a witness; false: proven that no request in the query reaches the target; nil: unknown.
        public var reachable: Bool?
        public var witness: NavigationRequest?
        public var decision: Decision?
        public var unknownReason: String?
        /// Steps the run spent (at most a little over ``Limits/steps``; over it exactly when the bound stopped the run).
        public var steps = 0
    }

    // MARK: Reachability

    /// Every handler of `policy`, in chain order.
    public static func reachability(_ policy: CompiledPolicy, limits: Limits = Limits()) -> [Reachability] {
        reachabilityReport(policy, limits: limits).handlers
    }

    /// Every handler of `policy`, in chain order, and the steps the run spent.
    public static func reachabilityReport(_ policy: CompiledPolicy, limits: Limits = Limits()) -> (
        handlers: [Reachability], steps: Int
    ) {
        let meter = AnalysisBudget(steps: limits.steps, isCancelled: limits.isCancelled)
        var handlers = reachability(policy, meter: meter)
        // "Never decides" rests on the model being complete (``ModelledFields``).
        if handlers.contains(where: { $0.reachable == false }), let reason = ModelledFields.unknownReason(policy.links) {
            for index in handlers.indices where handlers[index].reachable == false {
                handlers[index].reachable = nil
                handlers[index].unknownReason = reason
            }
        }
        return (handlers, meter.spent)
    }

    private static func reachability(_ policy: CompiledPolicy, meter: AnalysisBudget) -> [Reachability] {
        let links = policy.links
        guard meter.chargeDomain(links.map(\.matcher)) else { return links.map { unknown($0, meter.reason) } }
        let domain = AnalysisDomain(matchers: links.map(\.matcher), budget: meter)
        // Regions the bound stopped half built answer nothing (``PathRegions/build(fresh:budget:)``).
        guard !meter.isExhausted else { return links.map { unknown($0, meter.reason) } }
        var search = BoxSearch(domain: domain, meter: meter)
        // A handler whose urlPatterns are not cut into regions matches only part of its box: it never covers.
        let candidates = CandidateIndex(domain: domain, enforcing: links.indices.map { canCover(links[$0], domain, $0) })
        let unmodelled = links.filter { !HandlerOutcome.isModelled($0) }.map(\.name)
        let rarity = domain.rarity()
        return links.indices.map { position in
            // Past the bound, nothing more is collected or searched for the remaining handlers.
            guard !meter.isExhausted else { return unknown(links[position], meter.reason) }
            // Collecting candidates is charged only when it happens: most handlers are reached
            // by a cheap witness first and never collect them.
            var answer = reachability(
                of: position, box: domain.boxes[position], wide: domain.boxWithoutPatterns(position), policy: policy,
                domain: domain, rarity: rarity,
                candidates: {
                    meter.spend(candidates.cost(of: domain.boxes[position]))
                    return candidates.earlier(than: position, intersecting: domain.boxes[position])
                }, search: &search)
            if answer.reachable == false, !unmodelled.isEmpty {
                answer.reachable = nil
                answer.unknownReason = "handlers of a type the analysis does not know: " + unmodelled.joined(separator: ", ")
            }
            return answer
        }
    }

    /// `candidates` is called only when no cheap witness reaches the handler: collecting the
    /// earlier handlers a box meets costs a scan that grows with the chain.
    /// `wide`: the box with the handler's (and the query's) `urlPatterns` left out, which holds
    /// every request the standard reading may find it matching (``standardReading(of:wide:policy:domain:search:reaches:)``).
    private static func reachability(
        of position: Int, box: [RegionSet], wide: [RegionSet], policy: CompiledPolicy, domain: AnalysisDomain,
        rarity: AnalysisDomain.Rarity, candidates: () -> [Int], search: inout BoxSearch, query: RequestMatcher? = nil
    ) -> Reachability {
        let link = policy.links[position]
        var answer = Reachability(
            name: link.name, reachable: nil, shadowedBy: [], witness: nil, unknownReason: nil, isShadow: link.isShadow)
        let meter = search.meter
        func reaches(_ request: NavigationRequest) -> Bool {
            meter.spend(AnalysisBudget.decideCost(policy))
            guard let canonical = try? CanonicalRequest(request) else { return false }
            let decision = policy.decide(canonical)
            let reached =
                link.isShadow
                ? decision.shadow?.contains { $0.handler == link.name } ?? false
                : decision.handler == link.name
            // A request is in a query's scope when its match holds on any reading (``holdsOnSomeReading(_:)``).
            return reached && (query?.holdsOnSomeReading(canonical) ?? true)
        }
        // The plain reading never reaches the handler: an enforcing allow handler is then never
        // reached; any other may still be, through the standard reading of urlPatterns.
        func unreachableInPlainReading(_ answer: inout Reachability) {
            if link.handler.isAllow && !link.isShadow {
                answer.reachable = false
                return
            }
            switch standardReading(
                of: position, wide: wide, policy: policy, domain: domain, search: &search, reaches: reaches)
            {
            case .exact:
                answer.reachable = false
            case .reached(let request):
                answer.reachable = true
                answer.witness = request
                answer.shadowedBy = []
            case .unknown(let reason):
                answer.unknownReason = reason
            }
        }
        // An empty box is proof of no request only when its path regions are exact.
        if box.contains(where: { $0?.isEmpty ?? false }), !domain.hasGeneralPattern[position] {
            unreachableInPlainReading(&answer)
            return answer
        }
        // Most handlers are reached by the box's plainest request or by its least contested
        // one (regions few other handlers accept): the engine decides it, so a witness found
        // here is as sure as one the search finds, at the cost of one decision.
        // A handler filed under urlPatterns: the URL also comes from each pattern
        // (``URLPatternWitness``), the rest from the box, for what the regions do not model.
        var tries = [domain.witness(in: box), domain.witness(in: box, rarity: rarity)].compactMap { $0 }
        if let patterns = link.matcher.urlPatterns {
            let base = tries.first ?? NavigationRequest(url: "")
            tries += URLPatternWitness.urls(patterns, fresh: domain.fresh).map { url in
                var request = base
                request.url = url
                return request
            }
        }
        if search.meter.isExhausted {
            answer.unknownReason = search.meter.reason
            return answer
        }
        for request in tries where reaches(request) {
            answer.reachable = true
            answer.witness = request
            return answer
        }
        var chosen: Set<Int> = []
        switch search.cover(box, candidates(), boxes: domain.boxes, avoid: domain.hasGeneralPattern, chosen: &chosen) {
        case .exhausted:
            answer.unknownReason = search.meter.reason
        case .uncovered(let request):
            if reaches(request) {
                answer.reachable = true
                answer.witness = request
            } else if let reason = unmodelledReason(0...position, policy.links, domain) {
                answer.unknownReason = reason
            } else {
                answer.unknownReason =
                    "the witness \(RequestMatcher.shortened(Substring(request.url))) (\(request.method)) did not reach the handler when decided: "
                    + "an analysis error, reported instead of a wrong answer"
            }
        case .covered:
            let used = chosen.sorted()
            answer.shadowedBy = used.map { policy.links[$0].name }
            if let reason = inexactCover(position, used: used, domain: domain) {
                answer.unknownReason = reason
            } else {
                unreachableInPlainReading(&answer)
            }
        }
        return answer
    }

    /// Whether a link may be used to cover later ones: enforcing, and matching all of its box
    /// (a handler whose urlPatterns are not cut into regions matches only part of it).
    static func canCover(_ link: ChainLink, _ domain: AnalysisDomain, _ position: Int) -> Bool {
        !link.isShadow && domain.patternsUnmodelled[position] == nil
    }

    /// Why answers that rest on the handlers at `positions` are unknown because their
    /// `urlPatterns` are not cut into regions (``URLPatternShape``), or nil when all are.
    static func unmodelledReason(_ positions: some Sequence<Int>, _ links: [ChainLink], _ domain: AnalysisDomain)
        -> String?
    {
        unmodelledReason(
            positions.compactMap { position in
                domain.patternsUnmodelled[position].map { (links[position].name, $0) }
            })
    }

    static func unmodelledReason(_ named: [(name: String, reason: String)]) -> String? {
        guard !named.isEmpty else { return nil }
        return "urlPatterns not cut into regions, so what rests on them is not decided: "
            + named.map { "\"\($0.name)\": \($0.reason)" }.joined(separator: "; ")
    }

    /// Why a cover may have missed requests, or nil when it is exact.
    private static func inexactCover(_ position: Int, used: [Int], domain: AnalysisDomain) -> String? {
        if domain.casesMixed {
            return "handlers mix caseSensitive and case-insensitive path conditions with letters; "
                + "their overlap is not decided exactly" + domain.pathAutomatonNote
        }
        if used.contains(where: { domain.hasGeneralPattern[$0] }) {
            return "the cover relies on pathPatterns with \"*\" inside or \"?\", whose overlap is not decided exactly"
                + domain.pathAutomatonNote
        }
        if position >= 0, domain.hasGeneralPattern[position],
            !used.allSatisfy({ domain.boxes[$0][AnalysisDomain.path] == nil })
        {
            return "its pathPatterns have \"*\" inside or \"?\"; only a cover by handlers without path conditions is exact"
        }
        return nil
    }

    // MARK: Equivalence

    /// Compares two chains on every request; `comparingNames` also requires the same handler.
    public static func equivalence(
        _ first: CompiledPolicy, _ second: CompiledPolicy, comparingNames: Bool = false, limits: Limits = Limits()
    ) -> Equivalence {
        let meter = AnalysisBudget(steps: limits.steps, isCancelled: limits.isCancelled)
        guard meter.chargeDomain(first.links.map(\.matcher) + second.links.map(\.matcher)) else {
            return Equivalence(
                equivalent: nil, counterexamples: [], differingRegions: 0, unknownReasons: [meter.reason], steps: meter.spent)
        }
        let domain = AnalysisDomain(matchers: first.links.map(\.matcher) + second.links.map(\.matcher), budget: meter)
        // Regions the bound stopped half built answer nothing (``PathRegions/build(fresh:budget:)``).
        guard !meter.isExhausted else {
            return Equivalence(
                equivalent: nil, counterexamples: [], differingRegions: 0, unknownReasons: [meter.reason], steps: meter.spent)
        }
        let offset = first.links.count
        let firstBoxes = Array(domain.boxes[..<offset])
        let secondBoxes = Array(domain.boxes[offset...])
        let firstOutcomes = first.links.map { HandlerOutcome($0, comparingNames: comparingNames) }
        let secondOutcomes = second.links.map { HandlerOutcome($0, comparingNames: comparingNames) }
        let firstDefault = HandlerOutcome(default: first.defaultVerdict)
        let secondDefault = HandlerOutcome(default: second.defaultVerdict)
        func enforcing(_ links: [ChainLink], _ boxes: [[RegionSet]]) -> [Int] {
            links.indices.filter { !links[$0].isShadow && !boxes[$0].contains { $0?.isEmpty ?? false } }
        }
        var search = BoxSearch(domain: domain, meter: meter)
        var result = Equivalence(equivalent: nil, counterexamples: [], differingRegions: 0, unknownReasons: [])
        var unconfirmed = 0
        let root = [RegionSet](repeating: nil, count: AnalysisDomain.fieldCount)
        // Equal boxes get one number, so "same box and outcome" is two comparisons.
        var boxNumbers: [[RegionSet]: Int] = [:]
        let numbers = domain.boxes.map { box in
            if let known = boxNumbers[box] { return known }
            boxNumbers[box] = boxNumbers.count
            return boxNumbers.count - 1
        }
        let finished = search.explore(
            root, enforcing(first.links, firstBoxes), enforcing(second.links, secondBoxes), firstBoxes: firstBoxes,
            secondBoxes: secondBoxes,
            // Where neither chain's handlers match, each default decides: alike lists of
            // handlers only decide alike there when the defaults do.
            defaultsAlike: firstDefault == secondDefault,
            // A box leaves urlPatterns out, so handlers with patterns are never taken as alike.
            alike: { one, other in
                numbers[one] == numbers[offset + other] && firstOutcomes[one] == secondOutcomes[other]
                    && first.links[one].matcher.urlPatterns == nil && second.links[other].matcher.urlPatterns == nil
            }
        ) { box, one, other in
            let firstOutcome = one.map { firstOutcomes[$0] } ?? firstDefault
            let secondOutcome = other.map { secondOutcomes[$0] } ?? secondDefault
            guard firstOutcome != secondOutcome else { return true }
            meter.spend(box.reduce(1) { $0 + ($1?.count ?? 0) })
            guard let request = domain.witness(in: box) else { return true }
            result.differingRegions += 1
            guard result.counterexamples.count < limits.counterexamples else { return true }
            meter.spend(AnalysisBudget.decideCost(first) + AnalysisBudget.decideCost(second))
            if let firstDecision = try? first.decide(request), let secondDecision = try? second.decide(request),
                !sameOutcome(firstDecision, secondDecision, comparingNames: comparingNames)
            {
                result.counterexamples.append(Counterexample(request: request, first: firstDecision, second: secondDecision))
            } else {
                unconfirmed += 1
            }
            return true
        }
        result.steps = meter.spent
        if !finished { result.unknownReasons.append(meter.reason) }
        if unconfirmed > 0 {
            result.unknownReasons.append(
                "\(unconfirmed) region(s) the analysis saw as different decided alike when re-checked "
                    + "(an analysis error, reported instead of a wrong answer)")
        }
        if !result.counterexamples.isEmpty {
            result.equivalent = false
            return result
        }
        let general = (first.links + second.links).enumerated().filter { domain.hasGeneralPattern[$0.offset] }
        if !general.isEmpty {
            result.unknownReasons.append(
                "pathPatterns with \"*\" inside or \"?\" (handlers "
                    + Set(general.map { "\"\($0.element.name)\"" }).sorted().joined(separator: ", ")
                    + ") are not decided exactly" + domain.pathAutomatonNote)
        }
        if domain.casesMixed {
            result.unknownReasons.append(
                "handlers mix caseSensitive and case-insensitive path conditions with letters; not decided exactly"
                    + domain.pathAutomatonNote)
        }
        let all = first.links + second.links
        if let reason = unmodelledReason(all.indices, all, domain) {
            result.unknownReasons.append(reason)
        } else if result.unknownReasons.isEmpty, result.differingRegions == 0,
            !all.allSatisfy({ readsAlikeInStandard($0.matcher) })
        {
            // The plain readings agree everywhere; the standard reading of urlPatterns may not.
            switch standardReadingDifference(first, second, domain: domain, comparingNames: comparingNames, meter: meter) {
            case .exact: break
            case .reached(let request):
                if let one = try? first.decide(request), let other = try? second.decide(request) {
                    result.counterexamples.append(Counterexample(request: request, first: one, second: other))
                    result.differingRegions += 1
                    result.equivalent = false
                    result.steps = meter.spent
                    return result
                }
            case .unknown(let reason):
                result.unknownReasons.append(reason)
            }
        }
        result.steps = meter.spent
        let unmodelled = (first.links + second.links).filter { !HandlerOutcome.isModelled($0) }
        if !unmodelled.isEmpty {
            result.unknownReasons.append(
                "handlers of a type the analysis does not know: " + unmodelled.map(\.name).joined(separator: ", "))
        }
        if let reason = ModelledFields.unknownReason(first.links + second.links) { result.unknownReasons.append(reason) }
        // Alike on every reading; a request's readings that both cancel must also break the tie alike.
        if result.unknownReasons.isEmpty, result.differingRegions == 0 {
            var reason = ReadingTieBreak.unknownReason(
                first, second, outcomes: (firstOutcomes, secondOutcomes), defaults: (firstDefault, secondDefault),
                boxes: (firstBoxes, secondBoxes), comparingNames: comparingNames)
            // Handlers that decide no request cannot break a tie: ask again without them, when
            // readings are plain requests and the budget proves them (an unknown one stays in).
            if reason != nil, ReadingTieBreak.readingsArePlainRequests(first, second) {
                let mayDecide = (
                    first: reachability(first, meter: meter).map { $0.reachable != false },
                    second: reachability(second, meter: meter).map { $0.reachable != false }
                )
                reason = ReadingTieBreak.unknownReason(
                    first, second, outcomes: (firstOutcomes, secondOutcomes), defaults: (firstDefault, secondDefault),
                    boxes: (firstBoxes, secondBoxes), comparingNames: comparingNames, mayDecide: mayDecide)
                result.steps = meter.spent
            }
            if let reason { result.unknownReasons.append(reason) }
        }
        if result.unknownReasons.isEmpty && result.differingRegions == 0 { result.equivalent = true }
        return result
    }

    /// Whether two decisions agree on what equivalence compares.
    static func sameOutcome(_ first: Decision, _ second: Decision, comparingNames: Bool) -> Bool {
        first.verdict == second.verdict && first.action == second.action && first.location == second.location
            && first.response == second.response
            && (!comparingNames || first.handler == second.handler)
    }

    // MARK: Queries

    /// Whether any request that `query` matches (every request when nil) reaches `target`.
    public static func query(
        _ policy: CompiledPolicy, reaching target: Target, within query: RequestMatcher?, limits: Limits = Limits()
    ) -> QueryAnswer {
        let meter = AnalysisBudget(steps: limits.steps, isCancelled: limits.isCancelled)
        var answer = scopedQuery(policy, reaching: target, within: query, meter: meter)
        // "None can" rests on the model being complete (``ModelledFields``).
        if answer.reachable == false, let reason = ModelledFields.unknownReason(policy.links) {
            answer.reachable = nil
            answer.unknownReason = reason
        }
        answer.steps = meter.spent
        return answer
    }

    /// ``query(_:reaching:within:limits:)`` with the scope read on the match form only.
    static func matchFormQuery(
        _ policy: CompiledPolicy, reaching target: Target, within query: RequestMatcher?, meter: AnalysisBudget
    ) -> QueryAnswer {
        let links = policy.links
        var answer = QueryAnswer(reachable: nil, witness: nil, decision: nil, unknownReason: nil)
        guard meter.chargeDomain(links.map(\.matcher) + [query ?? .everything]) else {
            answer.unknownReason = meter.reason
            return answer
        }
        let domain = AnalysisDomain(matchers: links.map(\.matcher) + [query ?? .everything], budget: meter)
        // Regions the bound stopped half built answer nothing (``PathRegions/build(fresh:budget:)``).
        guard !meter.isExhausted else {
            answer.unknownReason = meter.reason
            return answer
        }
        let queryBox = domain.boxes[links.count]
        var search = BoxSearch(domain: domain, meter: meter)
        let queryGeneral = domain.hasGeneralPattern[links.count]
        switch target {
        case .handler(let name):
            guard let position = links.firstIndex(where: { $0.name.hasSameUTF8(as: name) }) else {
                answer.unknownReason = "no handler is named \"\(EchoedText.bounded(name))\""
                return answer
            }
            let box = zip(domain.boxes[position], queryBox).map { mine, asked -> RegionSet in
                switch (mine, asked) {
                case (nil, let other), (let other, nil): other
                case (let mine?, let asked?): RegionSets.intersection(mine, asked)
                }
            }
            let candidates = CandidateIndex(
                domain: domain, enforcing: links.indices.map { canCover(links[$0], domain, $0) } + [false])
            let wide = AnalysisDomain.intersection(
                domain.boxWithoutPatterns(position), domain.boxWithoutPatterns(links.count))
            let found = reachability(
                of: position, box: box, wide: wide, policy: policy, domain: domain, rarity: domain.rarity(),
                candidates: { candidates.earlier(than: position, intersecting: box) }, search: &search, query: query)
            answer.reachable = found.reachable
            answer.witness = found.witness
            answer.unknownReason = found.unknownReason
            if found.reachable == false,
                let reason = unmodelledReason([links.count], links + [ChainLink.probe(query ?? .everything)], domain)
            {
                answer.reachable = nil
                answer.unknownReason = reason
            } else if found.reachable == false, queryGeneral {
                answer.reachable = nil
                answer.unknownReason = "the query's path pattern has \"*\" inside or \"?\"; not decided exactly"
            }
        case .verdict(let verdict):
            let outcomes = links.map { HandlerOutcome($0, comparingNames: false) }
            let enforcing = links.indices.filter { !links[$0].isShadow }
                .filter { BoxSearch.intersects(domain.boxes[$0], queryBox) }
            var found: NavigationRequest?
            var misfit = false
            // Where the plain reading allows, the standard reading of urlPatterns may cancel: when
            // a handler whose patterns read differently there comes before the plain decider.
            let firstDiffering = links.firstIndex { !readsAlikeInStandard($0.matcher) }
            var risky: [[RegionSet]] = []
            func inScope(_ request: NavigationRequest) -> Bool {
                query.map { matcher in (try? CanonicalRequest(request)).map(matcher.holdsOnSomeReading) ?? false } ?? true
            }
            let finished = search.explore(
                queryBox, enforcing, [], firstBoxes: domain.boxes, secondBoxes: []
            ) { box, decider, _ in
                let outcome = decider.map { outcomes[$0] } ?? HandlerOutcome(default: policy.defaultVerdict)
                guard outcome.verdict == verdict else {
                    if verdict == .cancel, let firstDiffering, firstDiffering <= decider ?? links.count, risky.count < 64 {
                        risky.append(box)
                    }
                    return true
                }
                meter.spend(AnalysisBudget.decideCost(policy) + box.reduce(1) { $0 + ($1?.count ?? 0) })
                guard let request = domain.witness(in: box) else { return true }
                if let decision = try? policy.decide(request), decision.verdict == verdict, inScope(request) {
                    found = request
                    return false
                }
                misfit = true
                return true
            }
            if found == nil, finished, !risky.isEmpty {
                let patternURLs = links.flatMap { link in
                    (link.matcher.urlPatterns ?? []).compactMap { URLPatternWitness.url($0, fresh: domain.fresh) }
                }
                search: for box in risky {
                    guard let base = domain.witness(in: box) else { continue }
                    for request in dodges(of: base, patternURLs: patternURLs) where !meter.isExhausted {
                        meter.spend(AnalysisBudget.decideCost(policy))
                        if let decision = try? policy.decide(request), decision.verdict == verdict, inScope(request) {
                            found = request
                            break search
                        }
                    }
                }
            }
            if let found {
                answer.reachable = true
                answer.witness = found
            } else if !finished && meter.isExhausted {
                answer.unknownReason = meter.reason
            } else if let reason = unmodelledReason(
                0...links.count, links + [ChainLink.probe(query ?? .everything)], domain)
            {
                // Before a misfit: a witness built from regions that do not model a pattern (a
                // regexp group in the scope) misses it, and this says why (outside attack 10, L2).
                answer.unknownReason = reason
            } else if misfit {
                answer.unknownReason = "a witness did not decide as the analysis said when re-checked (an analysis error)"
            } else if !risky.isEmpty {
                answer.unknownReason =
                    "the engine also reads urlPatterns on the URL as the standard spells it (host with its trailing dot, "
                    + "path with its escapes and \";\" parameters), and where the plain reading allows, that reading may "
                    + "cancel; no spelling tried did, so not decided exactly"

            } else if queryGeneral || domain.hasGeneralPattern.contains(true) || domain.casesMixed {
                answer.unknownReason =
                    "pathPatterns with \"*\" inside or \"?\", or mixed case sensitivity, are not decided exactly"
                    + domain.pathAutomatonNote
            } else {
                answer.reachable = false
            }
        }
        if let witness = answer.witness { answer.decision = try? policy.decide(witness) }
        return answer
    }
}
