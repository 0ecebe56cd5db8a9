/// The engine's standard reading of `urlPatterns`, taken into account.
///
/// A chain with `urlPatterns` is decided once more on ``CanonicalRequest/standardURLReading``:
/// there the patterns read the WHATWG hostname, pathname and query, while every other
/// condition still reads the match forms. That reading decides the request only when it
/// cancels and the other reading allows, or cancels with a handler later in the chain
/// (``CompiledPolicy/combining(_:_:request:explain:decodedPath:secondForm:)``): a region whose
/// plain reading no handler before H decides is risky whatever decides it later.
/// The regions model the plain reading, so:
///
/// - an `allow` handler decides only as the plain reading's decider: its plain answer is exact;
/// - a `cancel` (or shadow) handler H can also be reached through the standard reading, on
///   requests whose plain reading allows. In that reading every handler without patterns, or
///   whose patterns read the same there (host, path and search all `*`), matches as in the
///   plain one. So H is reached there only on requests whose plain reading is allowed by a
///   handler whose patterns read differently, or by no earlier handler at all.
///   ``standardReadingRisks(of:wide:policy:domain:meter:)`` finds those regions of H's box
///   without its own patterns (its patterns read differently there too); when there are none,
///   the plain answer is exact. Otherwise spellings the standard reads apart (`host.`,
///   `/%61dmin`, `/a;x`, `/p/..;/x`) are built from each region's witness and decided by the
///   engine: one that reaches H is the witness; if none does, the answer is unknown.
extension PolicyAnalysis {
    /// Whether a matcher reads alike in both readings: no patterns, or each with hostname,
    /// pathname and search `*` (the only components whose values differ between the readings).
    static func readsAlikeInStandard(_ matcher: RequestMatcher) -> Bool {
        guard let patterns = matcher.urlPatterns else { return true }
        return patterns.allSatisfy { pattern in
            [3, URLPattern.pathnameIndex, URLPattern.searchIndex].allSatisfy { index in
                index < pattern.components.count && pattern.components[index].isAny
            }
        }
    }

    /// What the standard reading does to a claim that rests on the plain reading.
    enum StandardReadingCheck {
        /// No request's standard reading can change the claim.
        case exact
        /// This spelling reaches the handler (decided by the engine).
        case reached(NavigationRequest)
        case unknown(String)
    }

    /// Whether the handler at `position` (a cancel or shadow handler that the plain reading
    /// never reaches in `wide`) can be reached through the standard reading.
    static func standardReading(
        of position: Int, wide: [RegionSet], policy: CompiledPolicy, domain: AnalysisDomain, search: inout BoxSearch,
        reaches: (NavigationRequest) -> Bool
    ) -> StandardReadingCheck {
        let links = policy.links
        let earlier = links[..<position]
        let differing = earlier.filter { !readsAlikeInStandard($0.matcher) }.map(\.name)
        if differing.isEmpty && readsAlikeInStandard(links[position].matcher) { return .exact }
        // An earlier enforcing handler with the very same conditions matches whenever this one
        // does, in every reading: this one never decides (an unreachable copy).
        let conditions = links[position].matcher.writtenConditions
        if earlier.contains(where: {
            // The same type too: a pattern a regexp budget stopped holds for a cancel, not for an allow.
            !$0.isShadow && HandlerOutcome.isModelled($0) && $0.type == links[position].type
                && $0.matcher.writtenConditions == conditions
        }) {
            return .exact
        }
        let unmodelled = earlier.indices.filter { domain.patternsUnmodelled[$0] != nil }
        if !unmodelled.isEmpty {
            return .unknown(
                "the standard reading of urlPatterns may reach it, and the patterns of "
                    + unmodelled.map { "\"\(links[$0].name)\"" }.joined(separator: ", ") + " are not cut into regions")
        }
        let enforcing = earlier.indices.filter { !links[$0].isShadow && BoxSearch.intersects(domain.boxes[$0], wide) }
        // Which handler decides a region is read from the boxes: exact only where the path regions are.
        if domain.casesMixed || enforcing.contains(where: { domain.hasGeneralPattern[$0] }) {
            return .unknown(
                "the standard reading of urlPatterns may reach it, and the path regions of the handlers before it "
                    + "are not exact (pathPatterns with \"*\" inside or \"?\", or mixed case sensitivity)")
        }
        var risky: [[RegionSet]] = []
        let finished = search.explore(wide, enforcing, [], firstBoxes: domain.boxes, secondBoxes: []) { box, decider, _ in
            // The plain reading cancels, or is allowed by a handler that matches alike in the
            // standard reading (which then decides there too): H is not reached through it.
            if let decider, !links[decider].handler.isAllow || readsAlikeInStandard(links[decider].matcher) {
                return true
            }
            risky.append(box)
            return risky.count < 64
        }
        if !finished && search.meter.isExhausted { return .unknown(search.meter.reason) }
        if risky.isEmpty && finished { return .exact }
        let patternPaths = (links[...position]).flatMap { link in
            (link.matcher.urlPatterns ?? []).compactMap { URLPatternWitness.url($0, fresh: domain.fresh) }
        }
        for box in risky {
            guard let base = domain.witness(in: box) else { continue }
            for request in dodges(of: base, patternURLs: patternPaths) {
                guard !search.meter.isExhausted else { return .unknown(search.meter.reason) }
                if reaches(request) { return .reached(request) }
            }
        }
        let names = differing.isEmpty ? "its own" : differing.map { "\"\($0)\"" }.joined(separator: ", ")
        return .unknown(
            "the engine also reads urlPatterns on the URL as the standard spells it (host with its trailing dot, path with "
                + "its escapes and \";\" parameters), and where the plain reading allows, the patterns of \(names) may read "
                + "such a spelling apart and leave it to this handler; no spelling tried reached it, so not decided exactly")
    }

    /// Spellings of `request` that the standard reading reads apart from the match form:
    /// a trailing dot on a name, an escaped unreserved letter, a `;` parameter, and a path
    /// under each pattern's fixed directory that `..;` leads back out of.
    static func dodges(of request: NavigationRequest, patternURLs: [String]) -> [NavigationRequest] {
        guard let url = try? URLRecord.parse(request.url), !url.hostname.isEmpty else { return [] }
        let scheme = url.scheme
        let hostname = url.hostname
        let port = url.portString.isEmpty ? "" : ":" + url.portString
        let path = url.pathname
        func make(_ host: String, _ path: String) -> NavigationRequest {
            var copy = request
            copy.url = "\(scheme)://\(host)\(port)\(path)"
            return copy
        }
        let isName = !hostname.hasPrefix("[") && hostname.last.map { !$0.isNumber && $0 != "." } ?? false
        var hosts = [hostname]
        if isName { hosts.append(hostname + ".") }
        var paths = [path]
        let bytes = Array(path.utf8)
        if let letter = bytes.firstIndex(where: isUnreservedLetter) {
            let escaped = "%" + String(bytes[letter], radix: 16, uppercase: true)
            paths.append(
                String(decoding: bytes[..<letter], as: UTF8.self) + escaped
                    + String(decoding: bytes[(letter + 1)...], as: UTF8.self))
        }
        // `;x` ends the first segment (and the whole path): the match form drops it, the standard keeps it.
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        if segments.count > 1 {
            var withParameter = segments
            withParameter[1] += ";q"
            paths.append(withParameter.joined(separator: "/"))
        }
        paths.append(path + ";q")
        // `/dir/..;/path`: in the pattern's directory for the standard, `path` for the match form.
        for patternURL in patternURLs {
            guard let parsed = try? URLRecord.parse(patternURL), let slash = parsed.pathname.lastIndex(of: "/") else {
                continue
            }
            let directory = parsed.pathname[...slash]
            paths.append(directory + "..;" + path)
            if parsed.hostname == hostname || !isName { continue }
            hosts.append(parsed.hostname)
        }
        var result: [NavigationRequest] = []
        for host in hosts {
            for candidate in paths where !(host == hostname && candidate == path) {
                result.append(make(host, candidate))
            }
        }
        return result
    }

    private static func isUnreservedLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }
}

extension PolicyAnalysis {
    /// Two chains whose plain readings agree everywhere: whether their standard readings of
    /// `urlPatterns` can tell a request apart. Spellings read apart by the standard are built
    /// from the witnesses of every patterned handler's box (and its meeting with each other
    /// handler) and decided by both chains; a difference is a counterexample. No proof that
    /// none exists is attempted (the standard-spelling language is not cut into regions), so
    /// without one the answer is unknown.
    static func standardReadingDifference(
        _ first: CompiledPolicy, _ second: CompiledPolicy, domain: AnalysisDomain, comparingNames: Bool,
        meter: AnalysisBudget
    ) -> StandardReadingCheck {
        if sameChain(first, second, comparingNames: comparingNames) { return .exact }
        let all = first.links + second.links
        let differing = all.indices.filter { !readsAlikeInStandard(all[$0].matcher) }
        let patternURLs = all.flatMap { link in
            (link.matcher.urlPatterns ?? []).compactMap { URLPatternWitness.url($0, fresh: domain.fresh) }
        }
        var bases: [NavigationRequest] = []
        for position in differing where bases.count < 256 {
            if let own = domain.witness(in: domain.boxes[position]) { bases.append(own) }
            for other in all.indices where other != position && bases.count < 256 {
                guard BoxSearch.intersects(domain.boxes[position], domain.boxes[other]) else { continue }
                let meeting = AnalysisDomain.intersection(domain.boxes[position], domain.boxes[other])
                if let request = domain.witness(in: meeting) { bases.append(request) }
            }
        }
        for base in bases {
            for request in dodges(of: base, patternURLs: patternURLs) {
                guard !meter.isExhausted else { return .unknown(meter.reason) }
                meter.spend(AnalysisBudget.decideCost(first) + AnalysisBudget.decideCost(second))
                if let one = try? first.decide(request), let other = try? second.decide(request),
                    !sameOutcome(one, other, comparingNames: comparingNames)
                {
                    return .reached(request)
                }
            }
        }
        let names = Set(differing.map { "\"\(all[$0].name)\"" }).sorted().joined(separator: ", ")
        return .unknown(
            "the plain readings decide alike everywhere, but the engine also reads the urlPatterns of \(names) on the URL "
                + "as the standard spells it (host with its trailing dot, path with its escapes and \";\" parameters) and "
                + "lets a cancel there win; no such spelling tried decided differently, so not decided exactly")
    }

    /// Whether two chains are the same chain once what never changes a decision is left out:
    /// shadow handlers (equivalence compares decision, action, location and handler, not the
    /// shadow list) and copies of an earlier enforcing handler of the same type with the same
    /// conditions (it matches first in every reading). The same handlers in the same order
    /// decide alike in every reading, the standard one included: a proof the regions cannot give.
    static func sameChain(_ first: CompiledPolicy, _ second: CompiledPolicy, comparingNames: Bool) -> Bool {
        typealias Kept = (conditions: [String], type: String, outcome: HandlerOutcome, decides: Bool)
        func kept(_ policy: CompiledPolicy) -> [Kept] {
            var result: [Kept] = []
            for link in policy.links where !link.isShadow {
                let conditions = link.matcher.writtenConditions
                if result.contains(where: { $0.decides && $0.type == link.type && $0.conditions == conditions }) { continue }
                result.append(
                    (conditions, link.type, HandlerOutcome(link, comparingNames: comparingNames), HandlerOutcome.isModelled(link))
                )
            }
            return result
        }
        let one = kept(first)
        let other = kept(second)
        return first.defaultVerdict == second.defaultVerdict && one.count == other.count
            && zip(one, other).allSatisfy { left, right in
                left.conditions == right.conditions && left.type == right.type && left.outcome == right.outcome
            }
    }

    /// A query whose scope has `urlPatterns` that read differently in the standard reading:
    /// the scope then also holds for requests whose standard spelling matches the patterns, so
    /// "none" is proven on the scope without its patterns (and, with path conditions, without
    /// those, as ``scopedQuery(_:reaching:within:meter:)`` does), and a witness found there is
    /// respelled into the scope and decided again; otherwise the answer is unknown.
    static func standardScopedQuery(
        _ policy: CompiledPolicy, reaching target: Target, within scope: RequestMatcher, answer: QueryAnswer,
        meter: AnalysisBudget
    ) -> QueryAnswer {
        var wideScope = scope.withStandardReadingOfURLPatterns
        if wideScope.hasPathCondition { wideScope = wideScope.withoutPathConditions }
        let wide = matchFormQuery(policy, reaching: target, within: wideScope, meter: meter)
        if wide.reachable == false { return answer }
        if let outside = wide.witness, wide.reachable == true {
            let patternURLs = (scope.urlPatterns ?? []).compactMap { URLPatternWitness.url($0, fresh: "qz0") }
            for request in dodges(of: outside, patternURLs: patternURLs) where !meter.isExhausted {
                meter.spend(AnalysisBudget.decideCost(policy))
                guard let canonical = try? CanonicalRequest(request), scope.holdsOnSomeReading(canonical) else { continue }
                let decision = policy.decide(canonical)
                if reaches(decision, target, policy) {
                    return QueryAnswer(reachable: true, witness: request, decision: decision, unknownReason: nil)
                }
            }
        }
        var unknown = QueryAnswer(reachable: nil, witness: nil, decision: nil, unknownReason: wide.unknownReason)
        if unknown.unknownReason == nil {
            unknown.unknownReason =
                "the scope's urlPatterns also hold on the URL as the standard spells it (host with its trailing dot, path "
                + "with its escapes and \";\" parameters); outside their plain reading "
                + (wide.witness.map { "\($0.url) reaches the target" } ?? "the target is reached")
                + ", and no spelling tried that the patterns match that way did, so not decided exactly"
        }
        return unknown
    }
}

extension RequestMatcher {
    /// Every condition as written (field, text) and the case sensitivity: equal for two
    /// matchers that match the same requests in every reading, as each is compiled from these.
    var writtenConditions: [String] {
        [paths.caseSensitive ? "caseSensitive" : "caseInsensitive"]
            + analysisEntries.map { "\($0.field)\u{0}\($0.written)" }.sorted()
    }

    /// This matcher with each `urlPatterns` entry widened to what its standard reading can
    /// match, as far as the plain reading's fields tell: the same scheme and port, and the same
    /// host (a WHATWG hostname that a host pattern without a trailing dot matches is its own
    /// match form), any path and query. Without patterns when one cannot be widened so.
    var withStandardReadingOfURLPatterns: RequestMatcher {
        var conditions = self.conditions
        var widened: [URLPattern] = []
        for pattern in conditions.urlPatterns ?? [] {
            var parts = URLPatternInit(pathname: "*", search: "*", hash: "*")
            for name in ["protocol", "username", "password", "hostname", "port"] {
                parts[component: name] = pattern.patternString(name)
            }
            if pattern.patternString("hostname")?.hasSuffix(".") ?? true { parts.hostname = "*" }
            guard let wide = try? URLPattern(.dictionary(parts)) else {
                conditions.urlPatterns = nil
                break
            }
            widened.append(wide)
        }
        if conditions.urlPatterns != nil { conditions.urlPatterns = widened }
        if conditions.urlPatterns == nil { conditions.entries.removeAll { $0.field == .urlPatterns } }
        return RequestMatcher(conditions)
    }
}
