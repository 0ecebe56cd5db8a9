/// A query's scope taken as the engine matches: under every reading of the path.
///
/// A path with an encoded separator (`%2F`, `%5C`) has more than one reading, and the engine
/// decides every one (the reading that cancels wins; docs/url-canonicalization.md). A scope is
/// a set of requests, so it is read the same way: a request is in the scope when the scope's
/// `match` holds for any of its readings. `https://a.example/public/..%2Fsecret` is then in the
/// scope `pathPrefixes ["/public"]` (its match form is under `/public`) and is decided on its
/// reading `/secret` too. Reading the scope on the match form only answered "none" while that
/// request reached the target (outside attack 7, F2).
///
/// Exactness: every request's decision is the decision of one of its readings, and each
/// reading is decided as a plain request with the same host, scheme, method, navigation type
/// and frame would be. So when no request that meets the scope's other fields reaches the
/// target on any path, none in the scope does, whatever its readings; that is the "none"
/// this answers. Otherwise a request is built that stays in the scope as sent and reads as
/// the witness's path once decoded; re-decided, it is the witness, or the answer is unknown.
/// For `allow` no second search is needed: a request allows only when every reading does.
extension PolicyAnalysis {
    static func scopedQuery(
        _ policy: CompiledPolicy, reaching target: Target, within scope: RequestMatcher?, meter: AnalysisBudget
    ) -> QueryAnswer {
        let answer = matchFormQuery(policy, reaching: target, within: scope, meter: meter)
        guard answer.reachable == false, let scope else { return answer }
        if !readsAlikeInStandard(scope) {
            return standardScopedQuery(policy, reaching: target, within: scope, answer: answer, meter: meter)
        }
        guard scope.hasPathCondition else { return answer }
        // A request allows only when every reading allows (the reading that cancels wins), and
        // the reading in the scope does not: "none" is exact as it stands.
        if target == .verdict(.allow) { return answer }
        let wide = matchFormQuery(policy, reaching: target, within: scope.withoutPathConditions, meter: meter)
        if wide.reachable == false { return answer }
        guard let outside = wide.witness, wide.reachable == true else {
            var unknown = wide
            unknown.reachable = nil
            return unknown
        }
        for request in encodedSeparatorRequests(into: outside, scope: scope) {
            meter.spend(AnalysisBudget.decideCost(policy))
            guard let canonical = try? CanonicalRequest(request), scope.holdsOnSomeReading(canonical) else { continue }
            let decision = policy.decide(canonical)
            guard reaches(decision, target, policy) else { continue }
            return QueryAnswer(reachable: true, witness: request, decision: decision, unknownReason: nil)
        }
        var unknown = QueryAnswer(reachable: nil, witness: nil, decision: nil, unknownReason: nil)
        unknown.unknownReason =
            "a request is in the scope when its match holds on any reading of the path, and an encoded separator "
            + "(%2F, %5C) gives a path a second reading: \(outside.url) (outside the scope's paths) reaches the target, "
            + "and no request in the scope that reads as it once decoded was found; not decided exactly"
        return unknown
    }

    /// Whether a decision reaches the target (a shadow handler: is consulted and would decide).
    static func reaches(_ decision: Decision, _ target: Target, _ policy: CompiledPolicy) -> Bool {
        switch target {
        case .verdict(let verdict): return decision.verdict == verdict
        case .handler(let name):
            // Names by their bytes (``UTF8Bytes``): a handler name of combining marks made `==`
            // normalize it on every comparison (outside attack 15, F7).
            guard let link = policy.links.first(where: { $0.name.hasSameUTF8(as: name) }) else { return false }
            if link.isShadow { return decision.shadow?.contains { $0.handler.hasSameUTF8(as: name) } ?? false }
            return decision.handler.map { $0.hasSameUTF8(as: name) } ?? false
        }
    }

    /// Requests as `outside` (scheme, host, method, …) whose path, as sent, is a path of the
    /// scope followed by one segment, `..%2F` enough times and `outside`'s path with its `/`
    /// escaped: `/public/..%2F..%2Fsecret` for `/public` and `/secret`, which reads `/secret`
    /// once `%2F` is a separator.
    private static func encodedSeparatorRequests(into outside: NavigationRequest, scope: RequestMatcher)
        -> [NavigationRequest]
    {
        // Witnesses are `scheme://host/path` (an opaque path has no segment to add to).
        let parts = outside.url.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0].hasSuffix(":"), parts[1].isEmpty else { return [] }
        let origin = parts[0] + "//" + parts[2]
        let escaped = parts[3].split(separator: "/", omittingEmptySubsequences: false).joined(separator: "%2F")
        let domain = AnalysisDomain(matchers: [scope])
        let regions = domain.boxes.first?[AnalysisDomain.path] ?? []
        let paths = regions.prefix(16).compactMap { region in
            Int(region) < domain.paths.witnesses.count ? domain.paths.witnesses[Int(region)] : nil
        }
        return paths.map { path in
            let depth = path.utf8.filter { $0 == UInt8(ascii: "/") }.count + 1
            let base = path.hasSuffix("/") ? path : path + "/"
            var request = outside
            request.url = origin + base + String(repeating: "..%2F", count: depth) + escaped
            return request
        }
    }
}

extension RequestMatcher {
    /// Whether `paths`, `pathPrefixes` or `pathPatterns` is given.
    var hasPathCondition: Bool { paths.hasExact || paths.hasPrefixes || paths.hasPatterns }

    /// This matcher without its path conditions (every other field as it is).
    var withoutPathConditions: RequestMatcher {
        var conditions = self.conditions
        conditions.paths = PathSet(caseSensitive: paths.caseSensitive)
        conditions.entries.removeAll { [.paths, .pathPrefixes, .pathPatterns].contains($0.field) }
        return RequestMatcher(conditions)
    }

    /// Whether the match holds for any reading of the request, as the engine reads it.
    func holdsOnSomeReading(_ request: CanonicalRequest) -> Bool {
        matches(request) || request.otherReadings(forURLPatterns: urlPatterns != nil).contains(where: matches)
    }
}
