public import JSONSupport
import NavigationPolicy

/// Seeded random policies over every match form, mode, default decision, handler type, action
/// and location (``MatchFormPools``), and large lists that become tables.
public enum PolicyGenerator {
    /// The built-in handler types, and the parameters each reads (from the registry: a type
    /// added later is generated with its parameters without an edit here).
    public static let types = HandlerRegistry.builtIn.typeNames

    public static func parameters(of type: String) -> [String] {
        HandlerRegistry.builtIn.type(named: type)?.parameterKeys ?? []
    }

    /// A list of one to three entries of `values`.
    static func list(_ values: [String], _ random: inout HarnessRandom) -> JSONValue {
        .array((0...random.below(3)).map { _ in .string(random.pick(values)) })
    }

    /// A random value for the `match` key `key` (every key ``RequestMatcher`` reads has one).
    public static func matchValue(_ key: String, shape: PolicyShape, _ random: inout HarnessRandom) -> JSONValue? {
        switch key {
        case "schemes": return list(MatchFormPools.schemes, &random)
        case "hosts":
            if random.chance(shape.largeListPercent) {
                let base = random.below(1_000)
                var entries = (0..<shape.largeList).map { MatchFormPools.largeHost(base + $0, &random) }
                // A few ordinary entries among the generated ones: requests built from the pools hit them.
                entries += (0..<2).map { _ in random.pick(MatchFormPools.hostNames + MatchFormPools.hostSuffixes) }
                return .array(entries.map(JSONValue.string))
            }
            let kinds = [
                MatchFormPools.hostNames, MatchFormPools.hostSuffixes, MatchFormPools.hostRanges, MatchFormPools.hostClasses,
            ]
            return .array(
                (0...random.below(3)).map { _ -> JSONValue in
                    let kind = random.pick(kinds)
                    return .string(random.pick(kind))
                })
        case "paths": return list(MatchFormPools.paths, &random)
        case "pathPrefixes":
            if random.chance(shape.largeListPercent) {
                let base = random.below(1_000)
                var entries = (0..<shape.largeList).map { MatchFormPools.largePrefix(base + $0, &random) }
                entries.append(random.pick(MatchFormPools.prefixes))
                return .array(entries.map(JSONValue.string))
            }
            return list(MatchFormPools.prefixes, &random)
        case "pathPatterns": return list(MatchFormPools.pathPatterns, &random)
        case "urlPatterns": return .array((0...random.below(2)).map { _ in random.pick(MatchFormPools.urlPatterns) })
        case "methods": return list(MatchFormPools.methods, &random)
        case "navigationTypes": return list(MatchFormPools.navigationTypes, &random)
        case "targetFrames": return .array([.string(random.pick(MatchFormPools.targetFrames))])
        case "caseSensitive": return .bool(random.chance(50))
        default: return nil
        }
    }

    /// A `match` block: mostly one to three conditions, hosts and prefixes most often.
    public static func match(shape: PolicyShape, _ random: inout HarnessRandom) -> JSONObject {
        var match = JSONObject()
        for key in RequestMatcher.keys {
            let percent =
                switch key {
                case "hosts", "pathPrefixes": 35
                case "caseSensitive": 15
                case "urlPatterns": 14
                default: 12
                }
            if random.chance(percent), let value = matchValue(key, shape: shape, &random) { match.append(key, value) }
        }
        return match
    }

    public static func handler(_ index: Int, shape: PolicyShape, _ random: inout HarnessRandom) -> JSONObject {
        let type = random.pick(types)
        var handler: JSONObject = ["name": .string("h\(index)"), "type": .string(type)]
        let conditions = match(shape: shape, &random)
        // A handler without a match block matches every request: rare, as in real chains.
        if !conditions.members.isEmpty || random.chance(70) { handler.append("match", .object(conditions)) }
        if random.chance(15) {
            handler.append("mode", .string("shadow"))
        } else if random.chance(5) {
            handler.append("mode", .string("enforce"))
        }
        if parameters(of: type).contains("action"), random.chance(40) {
            handler.append("action", .string(random.pick(MatchFormPools.actions)))
        }
        if parameters(of: type).contains("location"), random.chance(50) {
            handler.append("location", .string(random.pick(MatchFormPools.locations)))
        }
        // Denial shaping rides on the decision: every engine (image, bundle) must carry it.
        if parameters(of: type).contains("response"), random.chance(20) {
            handler.append("response", .object(["headers": .object(["X-Harness": .string("h\(index)")])]))
        }
        return handler
    }

    /// A policy of `shape`; every one compiles (``PolicyCase``).
    public static func policy(shape: PolicyShape, _ random: inout HarnessRandom) -> JSONObject {
        let count = shape.handlers.lowerBound + random.below(shape.handlers.count)
        var policy = JSONObject()
        if random.chance(85) { policy.append("defaultDecision", .string(random.chance(50) ? "allow" : "cancel")) }
        policy.append("handlers", .array((0..<count).map { .object(handler($0, shape: shape, &random)) }))
        return policy
    }
}
