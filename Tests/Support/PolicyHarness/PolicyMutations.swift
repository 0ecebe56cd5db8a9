public import JSONSupport
import NavigationPolicy

/// One-field mutations of a policy: for every key the config decoder reads (top level, handler,
/// each type's parameters, every `match` key), a changed value and the key removed or added,
/// plus the chain's order. The keys come from the decoder, so a field added later has no
/// mutation here until one is written (``missingMutations(_:)`` names it, and a test fails).
public enum PolicyMutations {
    /// Every key the decoder reads, by where it is read.
    public static var decoderFields: (topLevel: [String], handler: [String], match: [String]) {
        let parameters = PolicyGenerator.types.flatMap(PolicyGenerator.parameters(of:))
        var handler: [String] = []
        for key in PolicyCompiler.handlerKeys + parameters where !handler.contains(key) { handler.append(key) }
        return (PolicyCompiler.chainKeys, handler, RequestMatcher.keys)
    }

    /// `object` with `key` set to `value` (removed when nil), in place when present.
    static func setting(_ object: JSONObject, _ key: String, _ value: JSONValue?) -> JSONObject {
        var result = object
        if let index = result.members.firstIndex(where: { $0.key == key }) {
            if let value { result.members[index].value = value } else { result.members.remove(at: index) }
        } else if let value {
            result.append(key, value)
        }
        return result
    }

    static func handlers(_ policy: JSONObject) -> [JSONObject] {
        (policy["handlers"]?.arrayValue ?? []).compactMap(\.objectValue)
    }

    static func withHandlers(_ policy: JSONObject, _ list: [JSONObject]) -> JSONObject {
        setting(policy, "handlers", .array(list.map(JSONValue.object)))
    }

    /// Mutations of a top-level key (nil: none is defined for it).
    static func topLevel(_ key: String, _ policy: JSONObject, _ random: inout HarnessRandom) -> [JSONObject]? {
        switch key {
        case "defaultDecision":
            let current = policy[key]?.stringValue ?? "allow"
            // Flipped; and the same default spelled out, or left to the decoder's ("allow").
            let same: JSONValue? =
                policy[key] == nil ? JSONValue.string("allow") : current == "allow" ? nil : JSONValue.string(current)
            return [setting(policy, key, .string(current == "allow" ? "cancel" : "allow")), setting(policy, key, same)]
        case "handlers":
            let list = handlers(policy)
            guard !list.isEmpty else { return [withHandlers(policy, [PolicyGenerator.handler(0, shape: .small, &random)])] }
            let index = random.below(list.count)
            var removed = list
            removed.remove(at: index)
            var copied = list
            copied.insert(setting(list[index], "name", .string("copy\(index)")), at: index + 1)
            var result = [withHandlers(policy, removed), withHandlers(policy, copied)]
            // The order: two neighbours swapped (equal on their own readings, not always on two).
            if list.count > 1 {
                var swapped = list
                let first = random.below(list.count - 1)
                swapped.swapAt(first, first + 1)
                result.append(withHandlers(policy, swapped))
            }
            return result
        default:
            return nil
        }
    }

    /// Mutations of one handler key (nil: none is defined; empty: the type does not take it).
    static func handler(_ key: String, _ handler: JSONObject, _ random: inout HarnessRandom) -> [JSONObject]? {
        let type = handler["type"]?.stringValue ?? "cancel"
        let parameters = PolicyGenerator.parameters(of: type)
        switch key {
        case "name":
            return [setting(handler, key, .string((handler[key]?.stringValue ?? "") + "-renamed"))]
        case "type":
            let other = random.pick(PolicyGenerator.types.filter { $0 != type })
            var changed = setting(handler, key, .string(other))
            for parameter in parameters where !PolicyGenerator.parameters(of: other).contains(parameter) {
                changed = setting(changed, parameter, nil)
            }
            return [changed]
        case "match":
            return [setting(handler, key, .object(PolicyGenerator.match(shape: .small, &random))), setting(handler, key, nil)]
        case "mode":
            let shadow = handler[key]?.stringValue == "shadow"
            return [setting(handler, key, .string(shadow ? "enforce" : "shadow"))]
        case "action":
            guard parameters.contains(key) else { return [] }
            let current = handler[key]?.stringValue
            return [
                setting(handler, key, .string(random.pick(MatchFormPools.actions.filter { $0 != current }))),
                setting(handler, key, nil),
            ]
        case "location":
            guard parameters.contains(key) else { return [] }
            let current = handler[key]?.stringValue
            return [
                setting(handler, key, .string(random.pick(MatchFormPools.locations.filter { $0 != current }))),
                setting(handler, key, nil),
            ]
        case "response":
            guard parameters.contains(key) else { return [] }
            // Fields on every cancel; a status only where no cancel carries a location (a
            // status beside a location is refused, and `logout`/`about` may have one by default).
            var shapes: [JSONObject] = [["headers": .object(["X-Harness": .string("r\(random.below(1_000))")])]]
            if type == "cancel" && handler["location"] == nil {
                shapes.append(["status": .number(Double(random.pick([401, 404, 410, 451])))])
            }
            return shapes.map { setting(handler, key, .object($0)) } + [setting(handler, key, nil)]
        default:
            return nil
        }
    }

    /// Mutations of one `match` key: a new value, and the key removed (or added).
    static func match(_ key: String, _ handler: JSONObject, _ random: inout HarnessRandom) -> [JSONObject]? {
        guard RequestMatcher.keys.contains(key) else { return nil }
        let match = handler["match"]?.objectValue ?? JSONObject()
        guard var changed = PolicyGenerator.matchValue(key, shape: .small, &random) else { return nil }
        if changed == match[key], case .bool(let flag) = changed { changed = .bool(!flag) }
        let toggled = match[key] == nil ? PolicyGenerator.matchValue(key, shape: .small, &random) : nil
        return [
            setting(handler, "match", .object(setting(match, key, changed))),
            setting(handler, "match", .object(setting(match, key, toggled))),
        ]
    }

    /// Every one-field mutation of `policy`, named by the field's JSON pointer.
    public static func all(_ policy: JSONObject, _ random: inout HarnessRandom) -> [(field: String, policy: JSONObject)] {
        let fields = decoderFields
        var result: [(String, JSONObject)] = []
        for key in fields.topLevel {
            for mutated in topLevel(key, policy, &random) ?? [] { result.append(("/\(key)", mutated)) }
        }
        let list = handlers(policy)
        for (index, original) in list.enumerated() {
            func replaced(_ changed: JSONObject) -> JSONObject {
                var copy = list
                copy[index] = changed
                return withHandlers(policy, copy)
            }
            for key in fields.handler {
                for changed in handler(key, original, &random) ?? [] {
                    result.append(("/handlers/\(index)/\(key)", replaced(changed)))
                }
            }
            for key in fields.match {
                for changed in match(key, original, &random) ?? [] {
                    result.append(("/handlers/\(index)/match/\(key)", replaced(changed)))
                }
            }
        }
        return result
    }

    /// The decoder's keys without a mutation here (empty when every field has one).
    public static func missingMutations(_ policy: JSONObject) -> [String] {
        var random = HarnessRandom(state: 1)
        let fields = decoderFields
        let handler = handlers(policy).first ?? ["name": .string("h"), "type": .string("cancel")]
        return fields.topLevel.filter { topLevel($0, policy, &random) == nil }.map { "top-level \"\($0)\"" }
            + fields.handler.filter { Self.handler($0, handler, &random) == nil }.map { "handler \"\($0)\"" }
            + fields.match.filter { match($0, handler, &random) == nil }.map { "match \"\($0)\"" }
    }
}
