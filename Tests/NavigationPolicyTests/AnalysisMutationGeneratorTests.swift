import JSONSupport
import Testing

@testable import NavigationPolicy
@testable import PolicyAuthoring

/// Issue 40, item 3: `analyze --against` must never prove "equivalent" for chains that decide
/// differently. Seeded random small policies, and one-field mutations of EVERY field the config
/// decoder reads (top-level keys, handler keys, each type's parameters, every `match` key: the
/// lists are taken from the decoder, so a field added later fails this test until it has a
/// mutation here). Each pair is analysed with and without `--compare handler`; every
/// "equivalent" is held to a few hundred generated requests decided by both chains (verdict,
/// action, location and url; the handler too when compared), every counterexample is decided
/// again and must really differ.
@Suite("Analysis: equivalence claims on one-field mutations")
struct AnalysisMutationGeneratorTests {
    typealias Generator = ChainIndexEquivalenceTests.SeededGenerator

    static let seeds: [UInt64] = [40, 4040, 404_040]
    static let policiesPerSeed = 3
    static let requestsPerPolicy = 260

    // MARK: Pools the policies and requests are drawn from

    static let hostEntries = ["a.example", "*.example", "b.example", "pay.example.com", "@loopback", "10.0.0.0/8"]
    static let pathEntries = ["/", "/a", "/a/b", "/Admin", "/logout"]
    static let prefixEntries = ["/a", "/admin", "/x/"]
    static let patternEntries = ["/a/*", "/x*", "/admin/*"]
    static let urlPatternEntries: [JSONValue] = [
        .string("https://a.example/*"),
        .object(["hostname": .string("b.example"), "pathname": .string("/x/*")]),
        .object(["pathname": .string("/a/*")]),
    ]
    static let schemeEntries = ["https", "http", "myapp"]
    static let methodEntries = ["GET", "POST", "PUT"]
    static let actions = ["block", "logout", "x1", "open-external"]
    static let locations = ["https://l.example/?u={url}", "https://m.example/", "myapp://open?u={url}"]
    static let types = HandlerRegistry.builtIn.typeNames

    static let requestHosts = [
        "a.example", "b.example", "x.example", "pay.example.com", "eu.pay.example.com", "127.0.0.1", "10.1.2.3",
        "other.test", "A.EXAMPLE.",
    ]
    static let requestPaths = [
        "/", "/a", "/a/b", "/A", "/Admin", "/admin", "/admin/x", "/x", "/x/y", "/xy", "/logout", "/a%2Fb",
        "/x/..%2Fadmin", "/q",
    ]
    static let requestSchemes = ["https", "http", "myapp", "ws"]
    static let requestMethods = ["GET", "POST", "HEAD", "PUT"]

    // MARK: Fields, from the decoder

    /// Every key the decoder reads, by where it is read.
    static var decoderFields: (topLevel: [String], handler: [String], match: [String]) {
        let parameters = types.flatMap { HandlerRegistry.builtIn.type(named: $0)?.parameterKeys ?? [] }
        var handler: [String] = []
        for key in PolicyCompiler.handlerKeys + parameters where !handler.contains(key) { handler.append(key) }
        return (PolicyCompiler.topLevelKeys, handler, RequestMatcher.keys)
    }

    // MARK: Generation

    static func pick<T>(_ values: [T], _ rng: inout Generator) -> T {
        values[Int(rng.next() % UInt64(values.count))]
    }

    static func chance(_ percent: UInt64, _ rng: inout Generator) -> Bool { rng.next() % 100 < percent }

    static func list(_ values: [String], _ rng: inout Generator) -> JSONValue {
        let count = 1 + Int(rng.next() % 2)
        return .array((0..<count).map { _ in .string(pick(values, &rng)) })
    }

    /// A random value for one `match` key.
    static func matchValue(_ key: String, _ rng: inout Generator) -> JSONValue {
        switch key {
        case "schemes": list(schemeEntries, &rng)
        case "hosts": list(hostEntries, &rng)
        case "paths": list(pathEntries, &rng)
        case "pathPrefixes": list(prefixEntries, &rng)
        case "pathPatterns": list(patternEntries, &rng)
        case "urlPatterns": .array([pick(urlPatternEntries, &rng)])
        case "methods": list(methodEntries, &rng)
        case "navigationTypes": list(NavigationType.allCases.map(\.rawValue), &rng)
        case "targetFrames": .array([.string(pick(TargetFrame.allCases.map(\.rawValue), &rng))])
        case "caseSensitive": .bool(chance(50, &rng))
        default: .null
        }
    }

    static func randomMatch(_ rng: inout Generator) -> JSONObject {
        var match = JSONObject()
        // Mostly one or two conditions: small chains whose handlers overlap.
        for key in RequestMatcher.keys where chance(key == "hosts" || key == "pathPrefixes" ? 35 : 12, &rng) {
            match.append(key, matchValue(key, &rng))
        }
        return match
    }

    /// Which parameters a type takes (``ConfigurableHandler/parameterKeys``).
    static func parameters(of type: String) -> [String] {
        HandlerRegistry.builtIn.type(named: type)?.parameterKeys ?? []
    }

    static func randomHandler(_ index: Int, _ rng: inout Generator) -> JSONObject {
        let type = pick(types, &rng)
        var handler: JSONObject = ["name": .string("h\(index)"), "type": .string(type)]
        handler.append("match", .object(randomMatch(&rng)))
        if chance(15, &rng) { handler.append("mode", .string("shadow")) }
        if parameters(of: type).contains("action"), chance(40, &rng) {
            handler.append("action", .string(pick(actions, &rng)))
        }
        if parameters(of: type).contains("location"), chance(50, &rng) {
            handler.append("location", .string(pick(locations, &rng)))
        }
        return handler
    }

    static func randomPolicy(_ rng: inout Generator) -> JSONObject {
        let count = 2 + Int(rng.next() % 3)
        return [
            "defaultDecision": .string(chance(50, &rng) ? "allow" : "cancel"),
            "handlers": .array((0..<count).map { .object(randomHandler($0, &rng)) }),
        ]
    }

    static func requests(_ rng: inout Generator) -> [NavigationRequest] {
        (0..<requestsPerPolicy).map { _ in
            let scheme = pick(requestSchemes, &rng)
            let port = chance(15, &rng) ? pick([":8443", ":443", ":80"], &rng) : ""
            let url =
                scheme == "myapp" && chance(40, &rng)
                ? "myapp:open"
                : "\(scheme)://\(pick(requestHosts, &rng))\(port)\(pick(requestPaths, &rng))"
            return NavigationRequest(
                url: url, method: pick(requestMethods, &rng),
                navigationType: pick(NavigationType.allCases.map { $0 }, &rng),
                targetFrame: pick(TargetFrame.allCases.map { $0 }, &rng))
        }
    }

    // MARK: Mutations

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

    static func withHandler(_ policy: JSONObject, _ index: Int, _ handler: JSONObject) -> JSONObject {
        var list = handlers(policy)
        list[index] = handler
        return setting(policy, "handlers", .array(list.map(JSONValue.object)))
    }

    /// One or more one-field mutations of a top-level key (nil: no mutation is defined).
    static func topLevelMutations(_ key: String, _ policy: JSONObject, _ rng: inout Generator) -> [JSONObject]? {
        switch key {
        case "defaultDecision":
            let flipped = policy["defaultDecision"]?.stringValue == "allow" ? "cancel" : "allow"
            // Spelled out as the default it already is: the same policy.
            return [setting(policy, key, .string(flipped)), setting(policy, key, policy[key])]
        case "handlers":
            var list = handlers(policy)
            let index = Int(rng.next() % UInt64(list.count))
            var copied = list
            copied.insert(setting(list[index], "name", .string("copy\(index)")), at: index + 1)
            list.remove(at: index)
            return [
                setting(policy, key, .array(list.map(JSONValue.object))),
                setting(policy, key, .array(copied.map(JSONValue.object))),
            ]
        case "server", "intake", "proxy", "decisionLog", "extAuthz":
            // Sections the front ends own: never part of a decision.
            return [setting(policy, key, .object([:]))]
        default:
            return nil
        }
    }

    /// Mutations of one handler key.
    static func handlerMutations(_ key: String, _ handler: JSONObject, _ rng: inout Generator) -> [JSONObject]? {
        let type = handler["type"]?.stringValue ?? "cancel"
        switch key {
        case "name":
            return [setting(handler, key, .string((handler[key]?.stringValue ?? "") + "-renamed"))]
        case "type":
            let other = pick(types.filter { $0 != type }, &rng)
            var changed = setting(handler, key, .string(other))
            for parameter in parameters(of: type) where !parameters(of: other).contains(parameter) {
                changed = setting(changed, parameter, nil)
            }
            return [changed]
        case "match":
            return [setting(handler, key, .object(randomMatch(&rng))), setting(handler, key, nil)]
        case "mode":
            let shadow = handler[key]?.stringValue == "shadow"
            return [setting(handler, key, .string(shadow ? "enforce" : "shadow"))]
        case "action":
            guard parameters(of: type).contains(key) else { return [] }
            let current = handler[key]?.stringValue
            return [
                setting(handler, key, .string(pick(actions.filter { $0 != current }, &rng))),
                setting(handler, key, current == nil ? nil : .string(current ?? "")),
            ]
        case "location":
            guard parameters(of: type).contains(key) else { return [] }
            let current = handler[key]?.stringValue
            return [
                setting(handler, key, .string(pick(locations.filter { $0 != current }, &rng))),
                setting(handler, key, nil),
            ]
        default:
            return nil
        }
    }

    /// Mutations of one `match` key: a new value, and the key removed (or added).
    static func matchMutations(_ key: String, _ handler: JSONObject, _ rng: inout Generator) -> [JSONObject]? {
        guard RequestMatcher.keys.contains(key) else { return nil }
        let match = handler["match"]?.objectValue ?? JSONObject()
        var changed = matchValue(key, &rng)
        if changed == match[key], case .bool(let flag) = changed { changed = .bool(!flag) }
        return [
            setting(handler, "match", .object(setting(match, key, changed))),
            setting(handler, "match", .object(setting(match, key, match[key] == nil ? matchValue(key, &rng) : nil))),
        ]
    }

    // MARK: The check

    struct Figures {
        var pairs = 0
        var equivalentClaims = 0
        var differentClaims = 0
        var unknown = 0
        var requestsDecided = 0
        var counterexamplesChecked = 0
        var falseProofs: [String] = []
        var falseCounterexamples: [String] = []
    }

    static func same(_ first: Decision, _ second: Decision, comparingNames: Bool) -> Bool {
        first.verdict == second.verdict && first.action == second.action && first.location == second.location
            && first.url == second.url && (!comparingNames || first.handler == second.handler)
    }

    static func check(
        _ original: CompiledPolicy, _ mutated: CompiledPolicy, label: String, requests: [NavigationRequest],
        originalDecisions: [Decision?], figures: inout Figures
    ) {
        for comparingNames in [false, true] {
            figures.pairs += 1
            let result = PolicyAnalysis.equivalence(
                original, mutated, comparingNames: comparingNames, limits: .init(steps: 2_000_000))
            let name = label + (comparingNames ? " (--compare handler)" : "")
            switch result.equivalent {
            case true?:
                figures.equivalentClaims += 1
                for (index, request) in requests.enumerated() {
                    figures.requestsDecided += 1
                    let mine = originalDecisions[index]
                    let theirs = try? mutated.decide(request)
                    let alike: Bool =
                        switch (mine, theirs) {
                        case (nil, nil): true
                        case (let one?, let other?): same(one, other, comparingNames: comparingNames)
                        default: false
                        }
                    if !alike {
                        figures.falseProofs.append("\(name): \"equivalent\", yet \(request.url) decides differently")
                        break
                    }
                }
            case false?:
                figures.differentClaims += 1
                for example in result.counterexamples {
                    figures.counterexamplesChecked += 1
                    guard let one = try? original.decide(example.request), let other = try? mutated.decide(example.request),
                        !same(one, other, comparingNames: comparingNames)
                    else {
                        figures.falseCounterexamples.append("\(name): \(example.request.url) decides alike")
                        continue
                    }
                }
            case nil:
                figures.unknown += 1
            }
        }
    }

    static func compiled(_ policy: JSONObject) -> CompiledPolicy? {
        try? PolicyCompiler().compile(.object(policy))
    }

    @Test("every field the decoder reads has a mutation here")
    func everyFieldIsMutated() {
        var rng = Generator(state: 1)
        let policy = Self.randomPolicy(&rng)
        let handler = Self.handlers(policy)[0]
        let fields = Self.decoderFields
        for key in fields.topLevel {
            #expect(Self.topLevelMutations(key, policy, &rng) != nil, "top-level \"\(key)\" has no mutation")
        }
        for key in fields.handler {
            #expect(Self.handlerMutations(key, handler, &rng) != nil, "handler \"\(key)\" has no mutation")
        }
        for key in fields.match {
            #expect(Self.matchMutations(key, handler, &rng) != nil, "match \"\(key)\" has no mutation")
        }
    }

    @Test("no false proof of equivalence on one-field mutations of every field (fixed seeds)")
    func noFalseProofs() throws {
        var figures = Figures()
        let fields = Self.decoderFields
        for seed in Self.seeds {
            var rng = Generator(state: seed)
            for number in 0..<Self.policiesPerSeed {
                let policy = Self.randomPolicy(&rng)
                guard let original = Self.compiled(policy) else {
                    Issue.record("seed \(seed) policy \(number) does not compile")
                    continue
                }
                let requests = Self.requests(&rng)
                let originalDecisions = requests.map { try? original.decide($0) }
                var mutations: [(String, JSONObject)] = []
                for key in fields.topLevel {
                    for mutated in Self.topLevelMutations(key, policy, &rng) ?? [] { mutations.append((key, mutated)) }
                }
                for (index, handler) in Self.handlers(policy).enumerated() {
                    for key in fields.handler {
                        for changed in Self.handlerMutations(key, handler, &rng) ?? [] {
                            mutations.append(("handlers/\(index)/\(key)", Self.withHandler(policy, index, changed)))
                        }
                    }
                    for key in fields.match {
                        for changed in Self.matchMutations(key, handler, &rng) ?? [] {
                            mutations.append(("handlers/\(index)/match/\(key)", Self.withHandler(policy, index, changed)))
                        }
                    }
                }
                for (field, mutated) in mutations {
                    guard let other = Self.compiled(mutated) else { continue }
                    Self.check(
                        original, other, label: "seed \(seed) policy \(number) \(field)", requests: requests,
                        originalDecisions: originalDecisions, figures: &figures)
                }
            }
        }
        print(
            "analysis mutations: \(figures.pairs) pairs, \(figures.equivalentClaims) equivalent claims checked on "
                + "\(figures.requestsDecided) requests, \(figures.differentClaims) not-equivalent claims "
                + "(\(figures.counterexamplesChecked) counterexamples re-decided), \(figures.unknown) unknown, "
                + "\(figures.falseProofs.count) false proofs")
        for proof in figures.falseProofs { Issue.record(Comment(rawValue: proof)) }
        for example in figures.falseCounterexamples { Issue.record(Comment(rawValue: example)) }
        #expect(figures.equivalentClaims >= 50 && figures.differentClaims >= 100, "\(figures)")
    }
}
