/// Warnings about a valid policy: things that compile but are probably not what the author meant.
public struct LintWarning: Sendable, Equatable, CustomStringConvertible {
    /// A stable kind for machines: `unreachable`, `duplicateEntry`, `emptyChain`,
    /// `paymentWithoutHosts`, `locationLoops`, `pathLevelOnlyOnHTTP`, `urlPatternNeverMatches`,
    /// `urlPatternDefaultPortOnly`.
    public var kind: String
    public var pointer: JSONPointer
    public var message: String

    public var description: String {
        (pointer.tokens.isEmpty ? "(root)" : pointer.description) + ": " + message
    }
}

/// Static checks of a compiled policy for `validate`.
public enum PolicyLint {
    /// The first condition of `matcher` a `CONNECT` tunnel cannot carry, or nil: a tunnel is
    /// decided as `https://host:port/` with the method `CONNECT` and no Fetch Metadata, so a
    /// path, method, navigation type or frame condition matches `http:` requests only.
    static func tunnelBlindField(of matcher: RequestMatcher) -> RequestMatcher.Field? {
        let pathLevel: [RequestMatcher.Field] = [.paths, .pathPrefixes, .pathPatterns, .methods]
        if let entry = matcher.entries.first(where: { pathLevel.contains($0.field) }) { return entry.field }
        // A URL pattern that constrains the path, query or fragment is as blind to a tunnel.
        if let patterns = matcher.urlPatterns,
            patterns.contains(where: { pattern in
                ["pathname", "search", "hash"].contains { pattern.patternString($0) != "*" }
            })
        {
            return .urlPatterns
        }
        if matcher.navigationTypes != nil { return .navigationTypes }
        if matcher.targetFrames != nil { return .targetFrames }
        return nil
    }

    /// Every warning, in chain order.
    public static func warnings(_ policy: CompiledPolicy) -> [LintWarning] {
        var comparisons = 0
        return warnings(policy, coverComparisons: &comparisons)
    }

    /// Every warning, counting the `Superset.covers` calls the unreachable check makes (tests
    /// hold it near-linear in the chain length without timing anything).
    static func warnings(_ policy: CompiledPolicy, coverComparisons: inout Int) -> [LintWarning] {
        var warnings: [LintWarning] = []
        var earlierHandlers = CoverCandidates()
        // Only a config with a proxy has tunnels to warn about.
        let hasProxy = policy.sections["proxy"] != nil
        // Only a config that sets up ext_authz says a Host port is the client's (/v1/authz is
        // always served, so it cannot be the sign: docs/security.md says it for nginx).
        let hasExtAuthz = policy.sections["extAuthz"] != nil
        let handlers = JSONPointer.root.appending("handlers")
        // A config with `policySource` pulls its chain and has none of its own by design
        // (docs/bundles.md "A fleet pulls"): an empty chain there says nothing (attack round 8, F11).
        if policy.links.isEmpty, policy.sections["policySource"] == nil {
            warnings.append(
                LintWarning(
                    kind: "emptyChain", pointer: handlers,
                    message:
                        "the chain is empty: every request gets the default (\"\(policy.defaultVerdict.rawValue)\")"))
        }
        // The analysis proves unreachability exactly, including covers made of several handlers
        // together; where it cannot decide (or the chain is too long for it), only a pairwise
        // proven cover warns, as before.
        let analysis =
            policy.links.count <= analyzedChainLimit
            ? PolicyAnalysis.reachability(policy, limits: PolicyAnalysis.Limits(steps: 20_000_000)) : nil
        for (position, link) in policy.links.enumerated() {
            let pointer = handlers.appending(position)
            if let answer = analysis?[position], answer.reachable != nil {
                if answer.reachable == false {
                    warnings.append(
                        LintWarning(kind: "unreachable", pointer: pointer, message: unreachableMessage(link, answer.shadowedBy)))
                }
            } else {
                // Candidates in chain order, and only those `covers` could answer other than `.no`
                // for: the first that covers is the one a scan of every earlier handler would find.
                for earlierPosition in earlierHandlers.candidates(for: link.matcher) {
                    let earlier = policy.links[earlierPosition]
                    coverComparisons += 1
                    // Only a proven cover warns: `validate --strict` fails CI on any warning, so a
                    // guess ("may be unreachable") would fail policies whose later handler still decides.
                    guard Superset.covers(earlier.matcher, link.matcher) == .yes else { continue }
                    warnings.append(
                        LintWarning(kind: "unreachable", pointer: pointer, message: unreachableMessage(link, [earlier.name])))
                    break
                }
            }
            if !link.isShadow { earlierHandlers.add(link.matcher, at: position) }
            var seen: [String: Int] = [:]
            for entry in link.matcher.entries {
                let key = entry.field.rawValue + "\u{0}" + entry.comparedAs
                if let first = seen[key] {
                    warnings.append(
                        LintWarning(
                            kind: "duplicateEntry",
                            pointer: pointer.appending("match").appending(entry.field.rawValue).appending(entry.index),
                            message:
                                "\"\(entry.written)\" repeats \(entry.field.rawValue)[\(first)] (the same after normalization)"))
                } else {
                    seen[key] = entry.index
                }
            }
            if link.type == PaymentRedirectHandler.typeName, link.matcher.hosts == nil {
                warnings.append(
                    LintWarning(
                        kind: "paymentWithoutHosts", pointer: pointer.appending("match"),
                        message: "payment-redirect without hosts sends matching navigations on every host to the system browser"))
            }
            if hasProxy, let field = Self.tunnelBlindField(of: link.matcher) {
                warnings.append(
                    LintWarning(
                        kind: "pathLevelOnlyOnHTTP", pointer: pointer.appending("match").appending(field.rawValue),
                        message: "handler \"\(link.name)\" matches on \(field.rawValue): through the forward proxy it acts on "
                            + "http: only; an https: tunnel (CONNECT) is decided on its host alone (path \"/\", method CONNECT), "
                            + "so use the reverse proxy or nginx auth_request for this rule on https: (docs/proxy.md)"))
            }
            warnings += URLPatternCondition.neverMatching(link.matcher, at: pointer.appending("match"))
            if hasExtAuthz { warnings += defaultPortOnly(link.matcher, at: pointer.appending("match")) }
            if let loop = locationLoop(link, policy) {
                warnings.append(LintWarning(kind: "locationLoops", pointer: pointer.appending("location"), message: loop))
            }
        }
        return warnings
    }

    /// Chains up to this long get the exact analysis in `validate` (10,000 handlers take
    /// about a second); longer ones get the pairwise check only.
    static let analyzedChainLimit = 20_000

    private static func unreachableMessage(_ link: ChainLink, _ cover: [String]) -> String {
        switch cover.count {
        case 0: "handler \"\(link.name)\" can never decide: its match holds for no request"
        case 1: "handler \"\(link.name)\" can never decide: the earlier handler \"\(cover[0])\" matches every request it matches"
        default:
            "handler \"\(link.name)\" can never decide: the earlier handlers "
                + cover.map { "\"\($0)\"" }.joined(separator: ", ") + " together match every request it matches"
        }
    }

    /// A `location` the policy itself cancels sends the app round in circles.
    private static func locationLoop(_ link: ChainLink, _ policy: CompiledPolicy) -> String? {
        guard let behavior = link.handler.cancelBehavior, let template = behavior.location,
            let request = try? CanonicalRequest(NavigationRequest(url: template.render(href: "https://example.com/")))
        else { return nil }
        let decision = policy.decide(request)
        guard decision.verdict == .cancel else { return nil }
        return
            "location \"\(request.href)\" is itself cancelled (by \"\(decision.handler ?? "the default")\"): the app would loop"
    }
}

/// Whether one matcher accepts every request another accepts, field by field: `.yes` only
/// when proven, `.no` when disproven or when the comparison cannot decide.
enum Superset {
    enum Answer { case yes, no }

    static func covers(_ outer: RequestMatcher, _ inner: RequestMatcher) -> Answer {
        // What an earlier handler's URL patterns accept is not compared: never a proven cover.
        if outer.urlPatterns != nil { return .no }
        var answer = Answer.yes
        func combine(_ next: Answer) {
            if next == .no { answer = .no }
        }
        combine(values(outer.schemes, inner.schemes))
        combine(values(outer.methods, inner.methods))
        combine(values(outer.navigationTypes, inner.navigationTypes))
        combine(values(outer.targetFrames, inner.targetFrames))
        if let outerHosts = outer.hosts {
            if let innerHosts = inner.hosts {
                combine(HostCover.covers(outerHosts, innerHosts) ? .yes : .no)
            } else {
                combine(.no)
            }
        }
        guard answer != .no else { return .no }
        combine(paths(outer, inner))
        return answer
    }

    private static func values<T>(_ outer: Set<T>?, _ inner: Set<T>?) -> Answer {
        guard let outer else { return .yes }
        guard let inner else { return .no }
        return inner.isSubset(of: outer) ? .yes : .no
    }

    /// The path fields: each of the outer's must hold for every path the inner accepts.
    private static func paths(_ outer: RequestMatcher, _ inner: RequestMatcher) -> Answer {
        let outerPaths = outer.paths
        let innerPaths = inner.paths
        if !outerPaths.hasExact, !outerPaths.hasPrefixes, !outerPaths.hasPatterns { return .yes }
        // A case-sensitive outer does not cover what a case-insensitive inner accepts.
        if outerPaths.caseSensitive, !innerPaths.caseSensitive { return .no }
        let fold: (String) -> String = outerPaths.caseSensitive ? { $0 } : { asciiLowercased($0) }
        let underOuterPrefix: (String) -> Bool = { path in
            MatchPath.anyLeadingSubpath(of: Substring(fold(path))) { outerPaths.prefixes.contains($0) }
        }
        let matchesOuterPattern: (String) -> Bool = { path in
            outerPaths.patterns.contains { $0.matches(MatchPath(pathname: path, isOpaque: false)) }
        }
        // The inner's narrowest path condition decides what its requests' paths can be.
        if innerPaths.hasExact {
            let innerExact = innerPaths.exact.map(String.init)
            if outerPaths.hasExact, !innerExact.allSatisfy({ outerPaths.exact.contains(Substring(fold($0))) }) {
                return .no
            }
            if outerPaths.hasPrefixes, !innerExact.allSatisfy(underOuterPrefix) { return .no }
            if outerPaths.hasPatterns, !innerExact.allSatisfy(matchesOuterPattern) { return .no }
            return .yes
        }
        if outerPaths.hasExact { return .no }
        if innerPaths.hasPrefixes {
            let prefixes = innerPaths.prefixes.map(String.init)
            if outerPaths.hasPrefixes, !prefixes.allSatisfy(underOuterPrefix) { return .no }
            if outerPaths.hasPatterns {
                // Each prefix, itself included (`/admin`), must be matched by one outer pattern.
                let covered = prefixes.allSatisfy { prefix in outerPaths.patterns.contains { $0.coversSubtree(prefix) } }
                guard covered else { return .no }
            }
            return .yes
        }
        if innerPaths.hasPatterns {
            let patterns = innerPaths.patterns
            // Every path a pattern matches starts with its index key, a whole-segment prefix.
            if outerPaths.hasPrefixes, !patterns.allSatisfy({ underOuterPrefix($0.indexKey) }) { return .no }
            if outerPaths.hasPatterns {
                let covered = patterns.allSatisfy { inner in
                    outerPaths.patterns.contains { $0.text == inner.text || $0.coversPattern(inner) }
                }
                guard covered else { return .no }
            }
            return .yes
        }
        return .no
    }
}
