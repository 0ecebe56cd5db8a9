public import JSONSupport

/// An immutable policy built once from config: the chain of handlers and the default.
///
/// `decide` is a pure function of the request; nothing in it parses config or touches
/// shared mutable state, so one instance serves any number of threads, and a reload
/// builds a new instance and swaps the reference.
public final class CompiledPolicy: Sendable {
    /// What applies when no handler decides.
    public let defaultVerdict: Decision.Verdict
    /// Handlers in config order.
    public let links: [ChainLink]
    /// Top-level sections other issues own (`server`, `intake`, `proxy`), as written; checked to be objects.
    public let sections: JSONObject

    /// Candidate lookup for long chains; nil when a scan is cheaper.
    private let index: ChainIndex?
    /// Every handler's `pathPatterns` in one automaton; nil when the chain has few patterns.
    private let patterns: ChainPatterns?
    /// Whether a handler has `match.urlPatterns`: then the URL as the standard reads it is one
    /// more reading (``CanonicalRequest/standardURLReading``).
    private let hasURLPatterns: Bool

    /// About how many handlers one decision checks: the whole chain when it is scanned, the
    /// handlers the index cannot file plus a few looked up when it is indexed.
    package var handlersCheckedPerDecision: Int {
        guard let index else { return links.count }
        return min(links.count, index.checkedOnEveryDecision + 8)
    }

    /// Below this many handlers a scan of their matchers is cheaper than hashing for candidates.
    static let indexThreshold = 4

    package convenience init(defaultVerdict: Decision.Verdict, links: [ChainLink], sections: JSONObject) {
        self.init(defaultVerdict: defaultVerdict, links: links, sections: sections, engines: .bySize)
    }

    /// Which of the chain's engines a policy decides with.
    ///
    /// `bySize` is what every front end gets: the index from ``indexThreshold`` handlers, the
    /// automaton from ``ChainPatterns/threshold`` patterns. The differential harness
    /// (Tests/Support/PolicyHarness) builds the same links with one engine forced on and the
    /// others off, so each is held to the linear scan on its own, whatever the chain's size.
    package enum Engines: Sendable {
        case bySize
        /// The index for every chain, no automaton: each candidate checks its own patterns.
        case indexOnly
        /// The automaton for every chain with a pattern, answering every covered handler
        /// (no pattern tried alone first), and no index: every handler is a candidate.
        case automatonOnly
    }

    package init(defaultVerdict: Decision.Verdict, links: [ChainLink], sections: JSONObject, engines: Engines) {
        self.defaultVerdict = defaultVerdict
        self.links = links
        self.sections = sections
        switch engines {
        case .bySize:
            self.index = links.count >= Self.indexThreshold ? ChainIndex(links: links) : nil
            self.patterns = ChainPatterns(links: links)
        case .indexOnly:
            self.index = ChainIndex(links: links)
            self.patterns = nil
        case .automatonOnly:
            self.index = nil
            self.patterns = ChainPatterns(links: links, threshold: 0, directBytes: 0)
        }
        self.hasURLPatterns = links.contains { $0.matcher.urlPatterns != nil }
    }

    /// The same chain deciding with `engines` (the differential harness's engines).
    package func deciding(with engines: Engines) -> CompiledPolicy {
        CompiledPolicy(defaultVerdict: defaultVerdict, links: links, sections: sections, engines: engines)
    }

    /// Canonicalizes and decides a request.
    ///
    /// - Throws: ``NavigationRequestError`` when a field of the request is invalid (the URL does
    ///   not parse, the method is not a token, …). Invalid input is never decided.
    public func decide(_ request: NavigationRequest) throws(NavigationRequestError) -> Decision {
        decideWithoutExplaining(try CanonicalRequest(request))
    }

    /// ``decide(_:)-(NavigationRequest)``, with the trace of every handler consulted when `explain` is set.
    public func decide(_ request: NavigationRequest, explain: Bool) throws(NavigationRequestError) -> Decision {
        decide(try CanonicalRequest(request), explain: explain)
    }

    /// Decides a canonical request: ``decide(_:explain:)-(CanonicalRequest,_)`` without explaining.
    ///
    /// Its own function, not a default of `explain`: a caller that never explains (the
    /// WebAssembly module's exports) then reaches no explain code, and its link drops it (about
    /// 29 KB of the module); neither walk tests the flag.
    public func decide(_ request: CanonicalRequest) -> Decision {
        decideWithoutExplaining(request)
    }

    /// Walks the chain: the first handler whose match holds and that decides wins.
    ///
    /// Long chains consult the index for candidates; the result is the same as a scan
    /// (explain always scans, since it reports every handler consulted).
    ///
    /// A path with an encoded separator (`%2F`, `%5C`) has two readings, since origin servers
    /// differ on whether that is a separator (``CanonicalRequest/decodedSeparatorPath``): the
    /// chain decides both, and when they differ the one that cancels wins, the handler first in
    /// chain order when both cancel (see ``combining(_:_:request:explain:decodedPath:secondForm:)``).
    /// Every other request is decided once, as before.
    ///
    /// A request whose port the client chose (``NavigationRequest/urlWithoutClientPort``) is
    /// decided once more without it, combined the same way: a handler that cancels the URL on
    /// the default port cancels it on every port the client may name, and one that cancels it
    /// on the named port still does (``decideWithClientPort(_:_:)``).
    public func decide(_ request: CanonicalRequest, explain: Bool) -> Decision {
        explain ? decideExplaining(request) : decideWithoutExplaining(request)
    }

    private func decideWithoutExplaining(_ request: CanonicalRequest) -> Decision {
        decideWithBudget(request, explain: false)
    }

    private func decideExplaining(_ request: CanonicalRequest) -> Decision {
        decideWithBudget(request, explain: true)
    }

    @inline(__always)
    private func decideWithBudget(_ request: CanonicalRequest, explain: Bool) -> Decision {
        // Decided as it is unless the chain has `urlPatterns`: a budgeted copy would retain and
        // release every field of the request.
        guard hasURLPatterns else { return decideBudgeted(request, explain: explain) }
        return decideBudgeted(request.withFreshRegexBudget(), explain: explain)
    }

    /// ``decide(_:explain:)`` of a request that carries the decision's regexp budget, if it needs one.
    @inline(__always)
    private func decideBudgeted(_ request: CanonicalRequest, explain: Bool) -> Decision {
        // The flag picks the closures rather than travelling in them: the walk that does not
        // explain then holds no reference to the one that does (see ``decide(_:)-(CanonicalRequest)``).
        var decision =
            explain
            ? decideWithClientPort(request) {
                allReadings($0, explain: true, position: &$1) { decideOneReadingExplained($0, position: &$1) }
            }
            : decideWithClientPort(request) {
                allReadings($0, explain: false, position: &$1) { decideOneReading($0, position: &$1) }
            }
        // An explained decision says what its regexp work cost and whether the budget decided.
        if explain, let budget = request.regexBudget {
            decision.regexpSteps = budget.spent
            if budget.exhausted { decision.regexpBudgetExhausted = true }
        }
        return decision
    }

    /// The request with a new regexp budget for this decision when the chain has `urlPatterns`
    /// (``URLPatternStepBudget``: every reading's regexp work counts against the one budget).
    @inline(__always)
    private func budgeted(_ request: CanonicalRequest) -> CanonicalRequest {
        hasURLPatterns ? request.withFreshRegexBudget() : request
    }

    /// ``decideLinear(_:)`` on every reading of the path, combined as ``decide(_:explain:)``
    /// combines them: the reference the fuzz targets compare the indexed chain with.
    package func decideLinearAllReadings(_ request: CanonicalRequest) -> Decision {
        decideWithClientPort(budgeted(request)) {
            allReadings($0, explain: false, position: &$1) { walkLinear($0, position: &$1) }
        }
    }

    /// `decideAll` on the request and, when its port is the client's choice, on the request
    /// without it: the one that cancels wins (``combining(_:_:request:explain:decodedPath:secondForm:)``,
    /// as for the readings of a path, the handler first in chain order when both cancel), so the
    /// client's port can neither take a request past a cancel written for the default port nor
    /// past one written for that port. An allow needs both readings to allow: an allow-list
    /// never lets more through for a port the client names.
    @inline(__always)
    private func decideWithClientPort(_ request: CanonicalRequest, _ decideAll: DecideReading) -> Decision {
        // The common case first, returning the walk's own value rather than a binding the other
        // branch also reads. The flag is asked first: the getter builds a whole request when
        // there is a port to drop.
        var position: Int32 = 0
        guard request.hasURLWithoutClientPort, let portless = request.withoutClientPortReading else {
            return decideAll(request, &position)
        }
        // Not explained as a path reading: each reading's own explanation is kept with it.
        return Self.combining(
            Self.positioned(request, decideAll), Self.positioned(portless, decideAll), request: request, explain: false
        ).decision
    }

    /// A reading's decision and the chain position of the handler that took it
    /// (``links``' count for the default decision): when two readings cancel with different
    /// handlers, the one first in chain order is reported (``combining(_:_:request:explain:decodedPath:secondForm:)``).
    typealias PositionedDecision = (decision: Decision, position: Int32)

    /// How the chain decides one reading: the decision, and the deciding handler's chain
    /// position through the `inout` argument. A request with one reading (nearly all) never
    /// builds a ``PositionedDecision``: copying that tuple out of the walk, and destroying it,
    /// cost ~425 instructions a decision (issue 41).
    typealias DecideReading = (CanonicalRequest, inout Int32) -> Decision

    /// `decideOne` of `request` as a ``PositionedDecision``, for combining it with another reading.
    @inline(__always)
    private static func positioned(_ request: CanonicalRequest, _ decideOne: DecideReading) -> PositionedDecision {
        var position: Int32 = 0
        let decision = decideOne(request, &position)
        return (decision, position)
    }

    /// The plain reading, then each further reading of the path combined into it.
    @inline(__always)
    private func allReadings(
        _ request: CanonicalRequest, explain: Bool, position: inout Int32, _ decideOne: DecideReading
    ) -> Decision {
        let plain = decideOne(request, &position)
        // Every further reading needs an encoded separator or `urlPatterns` (see below).
        guard request.hasDecodedSeparatorReadings || hasURLPatterns else {
            return plain
        }
        let combined = furtherReadings(request, (plain, position), explain: explain) { Self.positioned($0, decideOne) }
        position = combined.position
        return combined.decision
    }

    /// `decision` (the plain reading's) combined with each further reading of the request.
    private func furtherReadings(
        _ request: CanonicalRequest, _ plain: PositionedDecision, explain: Bool,
        _ decideOne: (CanonicalRequest) -> PositionedDecision
    ) -> PositionedDecision {
        var decision = plain
        if let decodedSeparator = request.decodedSeparatorReading {
            decision = Self.combining(decision, decideOne(decodedSeparator), request: request, explain: explain)
        }
        // Decoded before dot segments are resolved (``CanonicalRequest/rawDecodedSeparatorPath``):
        // combined the same way, so no reading's cancel is lost.
        if let raw = request.rawDecodedSeparatorReading {
            decision = Self.combining(
                decision, decideOne(raw), request: request, explain: explain, decodedPath: raw.matchPath)
        }
        // `match.urlPatterns` read as the standard reads the URL (WHATWG host and path): combined
        // the same way, so a pattern that matches either form cancels.
        if hasURLPatterns, let standard = request.standardURLReading {
            decision = Self.combining(
                decision, decideOne(standard), request: request, explain: explain, decodedPath: request.matchPath,
                secondForm: "the URLPattern standard's form \"\(request.url.hostname)\(request.url.pathname)\" (urlPatterns only)"
            )
        }
        // The match form with its trailing `/` kept (`/%61dmin/` is `/admin/` to a server that
        // decodes it, `/admin` in match form and `/%61dmin/` in the standard's).
        if hasURLPatterns, let slashed = request.matchFormSlashReading {
            decision = Self.combining(
                decision, decideOne(slashed), request: request, explain: explain, decodedPath: request.matchPath,
                secondForm:
                    "the match form with its trailing slash \"\(request.url.hostname)\(slashed.standardPathname)\" (urlPatterns only)"
            )
        }
        // The decoded readings' paths as the standard spells them (a trailing `/` kept:
        // `/admin%2F` is `/admin/` to a server that decodes it, and `/admin` in match form).
        // Only a URL with an encoded separator has a decoded reading: the rest skip this.
        if hasURLPatterns, request.decodedSeparatorPath != nil || request.rawDecodedSeparatorPath != nil {
            decision = decodedStandardReadings(request, decision, explain: explain, decideOne)
        }
        return decision
    }

    /// `decision` combined with the decoded readings' URLPattern-standard readings
    /// (``CanonicalRequest/decodedSeparatorStandardReading``,
    /// ``CanonicalRequest/rawDecodedSeparatorStandardReading``), as the other readings are.
    private func decodedStandardReadings(
        _ request: CanonicalRequest, _ decision: PositionedDecision, explain: Bool,
        _ decideOne: (CanonicalRequest) -> PositionedDecision
    ) -> PositionedDecision {
        var decision = decision
        let standard = [request.decodedSeparatorStandardReading, request.rawDecodedSeparatorStandardReading]
        for reading in standard.compactMap({ $0 }) + request.decodedMatchFormSlashReadings {
            decision = Self.combining(
                decision, decideOne(reading), request: request, explain: explain, decodedPath: reading.matchPath,
                secondForm: "the URLPattern standard's form of the decoded path \"\(request.url.hostname)"
                    + "\(reading.standardPathname)\" (urlPatterns only)")
        }
        return decision
    }

    @inline(__always)
    private func decideOneReadingExplained(_ request: CanonicalRequest, position: inout Int32) -> Decision {
        let explained = decideExplained(request)
        position = explained.position
        return explained.decision
    }

    @inline(__always)
    private func decideOneReading(_ request: CanonicalRequest, position: inout Int32) -> Decision {
        if let index { return decideWalking(request, index.candidates(for: request), position: &position) }
        guard patterns != nil else { return walkLinear(request, position: &position) }
        return decideWalking(request, 0..<Int32(links.count), position: &position)
    }

    /// One answer from the two readings of a path: fail closed on divergence.
    ///
    /// Readings that agree (verdict, handler, action, location) give that decision. Otherwise
    /// the reading that cancels decides; when both cancel, the one whose handler comes first in
    /// chain order (the default decision last), as a single reading's walk would report it: a
    /// `payment-redirect` early in the chain is not lost to a later `cancel` because a later
    /// reading found it (issue 38, item 8). When both allow, differently, the plain one. So no
    /// answer allows what one reading cancels, and every engine (scan, index, compiled image,
    /// explain) reports the same handler, since all of them combine here. Shadow results and
    /// the trace are the deciding reading's; with explain, `pathReading` says both forms and
    /// which one decided.
    static func combining(
        _ plainReading: PositionedDecision, _ otherReading: PositionedDecision, request: CanonicalRequest,
        explain: Bool, decodedPath shown: MatchPath? = nil, secondForm: String? = nil
    ) -> PositionedDecision {
        let plain = plainReading.decision
        let decodedSeparator = otherReading.decision
        let agree =
            plain.verdict == decodedSeparator.verdict && plain.handler == decodedSeparator.handler
            && plain.action == decodedSeparator.action && plain.location == decodedSeparator.location
        let decodedDecides =
            !agree && decodedSeparator.verdict == .cancel
            && (plain.verdict == .allow || otherReading.position < plainReading.position)
        var decision = decodedDecides ? decodedSeparator : plain
        let position = decodedDecides ? otherReading.position : plainReading.position
        guard explain, let decodedPath = shown ?? request.decodedSeparatorPath else { return (decision, position) }
        func said(_ decision: Decision) -> String {
            decision.verdict.rawValue + (decision.handler.map { " by \"\($0)\"" } ?? " by defaultDecision")
        }
        let forms =
            "path read two ways: match form \"\(request.matchPath.text)\" (%2F and %5C kept) and "
            + (secondForm ?? "decoded-separator form \"\(decodedPath.text)\" (%2F and %5C read as /)")
        if agree {
            decision.pathReading = forms + "; both readings decide \(said(plain)) (the trace is the match form's)"
        } else {
            let second = secondForm == nil ? "decoded-separator" : "URLPattern-standard"
            let outcome = "; the readings differ (match form: \(said(plain)), \(second) form: \(said(decodedSeparator))), "
            decision.pathReading =
                forms + outcome
                + (decodedDecides
                    ? plain.verdict == .cancel
                        ? "both cancel; the \(second) reading's handler comes first in the chain and decided (the trace is that reading's)"
                        : "the \(second) reading cancels and decided (the trace is that reading's)"
                    : plain.verdict == .cancel && decodedSeparator.verdict == .cancel
                        ? "both cancel; the match-form reading's handler comes first in the chain and decided (the trace is that reading's)"
                        : plain.verdict == .cancel
                            ? "the match-form reading cancels and decided (the trace is that reading's)"
                            : "neither cancels: the match-form reading decided (the trace is that reading's)")
        }
        // A third reading (decoded before dot segments) adds its sentence to the second's.
        if let earlier = plain.pathReading, let added = decision.pathReading, earlier != added {
            decision.pathReading = earlier + "; then " + added
        }
        return (decision, position)
    }

    /// The reference semantics: every handler in order. A shadow handler that would decide
    /// is recorded and the chain goes on as if it passed.
    package func decideLinear(_ request: CanonicalRequest) -> Decision {
        var position: Int32 = 0
        return walkLinear(request, position: &position)
    }

    /// ``decideLinear(_:)``, the deciding handler's position in `decided`.
    private func walkLinear(_ request: CanonicalRequest, position decided: inout Int32) -> Decision {
        // Empty arrays do not allocate: policies without shadow handlers pay one branch per match.
        var shadow: [ShadowResult] = []
        for (position, link) in links.enumerated() where link.matcher.matches(request) {
            guard let decision = link.handler.decide(request) else { continue }
            if link.isShadow {
                shadow.append(ShadowResult(link.name, decision))
                continue
            }
            decided = Int32(position)
            // Returned as it is unless a shadow handler matched first: attaching the list (out
            // of line) on every return made a copy of the decision, and its release, each time.
            if shadow.isEmpty { return decision }
            return Self.attaching(shadow, to: decision)
        }
        decided = Int32(links.count)
        let decision = defaultDecision(for: request)
        if shadow.isEmpty { return decision }
        return Self.attaching(shadow, to: decision)
    }

    /// Only the index's candidates, in position order.
    func decideIndexed(_ request: CanonicalRequest, index: ChainIndex) -> Decision {
        var position: Int32 = 0
        return decideWalking(request, index.candidates(for: request), position: &position)
    }

    /// The handlers at `positions` (ascending, possibly repeated) in order, their path patterns
    /// answered by the chain's automaton when it has one; the deciding handler's position in `decided`.
    private func decideWalking(
        _ request: CanonicalRequest, _ positions: some Sequence<Int32>, position decided: inout Int32
    ) -> Decision {
        var shadow: [ShadowResult] = []
        var previous: Int32 = -1
        var patternHits = LazyPatternHits(patterns, request.matchPath)
        for position in positions where position != previous {
            previous = position
            let link = links[Int(position)]
            guard patternHits.matches(link, at: position, request), let decision = link.handler.decide(request)
            else { continue }
            if link.isShadow {
                shadow.append(ShadowResult(link.name, decision))
                continue
            }
            decided = position
            if shadow.isEmpty { return decision }
            return Self.attaching(shadow, to: decision)
        }
        decided = Int32(links.count)
        let decision = defaultDecision(for: request)
        if shadow.isEmpty { return decision }
        return Self.attaching(shadow, to: decision)
    }

    /// `decision` with the shadow handlers' results: out of line, since few decisions have them.
    @inline(never)
    private static func attaching(_ shadow: [ShadowResult], to decision: Decision) -> Decision {
        var decision = decision
        decision.shadow = shadow
        return decision
    }

    /// Like ``decideIndexed(_:index:)`` with an index built on demand, for equivalence tests.
    package func decideIndexed(_ request: CanonicalRequest) -> Decision {
        decideIndexed(request, index: index ?? ChainIndex(links: links))
    }

    /// Every handler in order, with a step for each (and for the default), naming the field that
    /// failed or the entries that matched.
    ///
    /// Handlers the index does not offer are reported as failing the field they are filed
    /// under without matching it: the answer is the same, and an explained decision then costs
    /// a pass over the path per candidate, not per handler (2,000 path patterns × 64 KB).
    private func decideExplained(_ request: CanonicalRequest) -> PositionedDecision {
        var trace: [TraceStep] = []
        var shadow: [ShadowResult] = []
        var candidates = (index?.candidates(for: request) ?? [])[...]
        var patternHits = LazyPatternHits(patterns, request.matchPath)
        for (position, link) in links.enumerated() {
            while let next = candidates.first, next < Int32(position) { candidates = candidates.dropFirst() }
            let mismatch: RequestMatcher.Field?
            if let index, candidates.first != Int32(position), let filed = index.filedUnder[position] {
                mismatch = link.matcher.firstMismatch(request, knownFailing: filed)
            } else {
                mismatch = patternHits.firstMismatch(link, at: Int32(position), request)
            }
            if let field = mismatch {
                let reason = link.matcher.explain(field, for: request)
                trace.append(
                    TraceStep(handler: link.name, type: link.type, outcome: .passed, reason: reason, field: field))
                continue
            }
            let covered = patternHits.covers(Int32(position))
            let firstPattern = covered ? patternHits.firstPattern(of: Int32(position)) : nil
            let matched = link.matcher.matchedEntries(request) {
                covered ? firstPattern : link.matcher.paths.firstPatternMatch(request.matchPath)
            }.map {
                TraceStep.Match(
                    field: $0.field, index: $0.index, entry: $0.written,
                    value: link.matcher.explainedValue($0, request))
            }
            let how =
                matched.isEmpty
                ? "matched: no match conditions (every request)"
                : "matched: "
                    + matched.map { "\($0.field.rawValue)[\($0.index)] \"\($0.entry)\" ~ \"\($0.value)\"" }
                    .joined(separator: ", ")
            guard var decision = link.handler.decide(request) else {
                trace.append(
                    TraceStep(
                        handler: link.name, type: link.type, outcome: .passed, reason: how + ", but the handler passed",
                        matched: matched))
                continue
            }
            if link.isShadow {
                shadow.append(ShadowResult(link.name, decision))
                trace.append(
                    TraceStep(
                        handler: link.name, type: link.type, outcome: .shadow,
                        reason: how + "; shadow mode: would have decided \(decision.verdict.rawValue), the chain goes on",
                        matched: matched))
                continue
            }
            trace.append(TraceStep(handler: link.name, type: link.type, outcome: .decided, reason: how, matched: matched))
            decision.shadow = shadow.isEmpty ? nil : shadow
            decision.trace = trace
            return (decision, Int32(position))
        }
        var decision = defaultDecision(for: request)
        trace.append(
            TraceStep(
                handler: "defaultDecision", type: "default", outcome: .decided,
                reason: links.isEmpty
                    ? "no handlers: defaultDecision is \"\(defaultVerdict.rawValue)\""
                    : "no handler decided: defaultDecision is \"\(defaultVerdict.rawValue)\""))
        decision.shadow = shadow.isEmpty ? nil : shadow
        decision.trace = trace
        return (decision, Int32(links.count))
    }

    private func defaultDecision(for request: CanonicalRequest) -> Decision {
        Decision(
            verdict: defaultVerdict, handler: nil, action: defaultVerdict == .cancel ? "block" : nil, location: nil,
            url: request.href)
    }
}
