import JSONSupport
import TestSelection
import Testing

@testable import NavigationPolicy

/// The index must never change a decision: on random configs and random URLs, the indexed
/// lookup and the plain first-match scan agree on every request.
@Suite("Chain index equivalence", .tags(.volume))
struct ChainIndexEquivalenceTests {
    /// A small deterministic generator (SplitMix64) so failures reproduce from the seed.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let hostPatterns = [
        "a.example", "b.example", "*.example", "*.a.example", "pay.example.com", "*.example.com", "127.0.0.1", "[::1]",
        "A.EXAMPLE.", "xn--nxasmq6b.example", "@loopback", "@internal", "@private", "10.0.0.0/8", "fd00::/8",
        "127.0.0.0/8",
    ]
    static let pathPatterns = ["/", "/a", "/a/b", "/Logout", "/x/", "/a/b/c", "/%6Cogout", "/checkout"]
    static let globPatterns = ["/a/*", "/a*", "/*/b", "/?", "/x/?/c*", "/Logout*", "/a/b", "/*", "/checkout*/*"]
    static let hosts = [
        "a.example", "b.example", "c.a.example", "x.example", "pay.example.com", "eu.pay.example.com", "example.com",
        "127.0.0.1", "0x7f.1", "[::1]", "A.Example.", "other.test", "βόλος.example", "0.0.0.0", "[::]",
        "foo.localhost", "localhost.", "10.1.2.3", "[fd00::1]", "[::ffff:127.0.0.1]", "127.1.2.3",
    ]
    static let pathPieces = ["a", "b", "c", "A", "Logout", "logout", "%6Cogout", "x", "..", ".", "", "checkout", "b;v=1"]

    func pick<T>(_ values: [T], _ rng: inout SeededGenerator) -> T {
        values[Int(rng.next() % UInt64(values.count))]
    }

    func randomList(_ values: [String], _ rng: inout SeededGenerator) -> JSONValue {
        let count = 1 + Int(rng.next() % 3)
        return .array((0..<count).map { _ in .string(pick(values, &rng)) })
    }

    func randomConfig(_ rng: inout SeededGenerator) -> JSONValue {
        let count = Int(CompiledPolicy.indexThreshold) + Int(rng.next() % 40)
        var handlers: [JSONValue] = []
        for index in 0..<count {
            var match = JSONObject()
            if rng.next() % 2 == 0 { match.append("hosts", randomList(Self.hostPatterns, &rng)) }
            if rng.next() % 3 == 0 { match.append("paths", randomList(Self.pathPatterns, &rng)) }
            if rng.next() % 3 == 0 { match.append("pathPrefixes", randomList(Self.pathPatterns, &rng)) }
            if rng.next() % 3 == 0 { match.append("pathPatterns", randomList(Self.globPatterns, &rng)) }
            if rng.next() % 4 == 0 { match.append("schemes", randomList(["http", "https", "javascript"], &rng)) }
            if rng.next() % 5 == 0 { match.append("methods", randomList(["GET", "POST"], &rng)) }
            if rng.next() % 5 == 0 {
                match.append("navigationTypes", randomList(NavigationType.allCases.map(\.rawValue), &rng))
            }
            if rng.next() % 5 == 0 { match.append("targetFrames", randomList(["main", "sub"], &rng)) }
            if rng.next() % 4 == 0 { match.append("caseSensitive", .bool(true)) }
            var handler: JSONObject = [
                "name": .string("h\(index)"),
                "type": .string(pick(["logout", "about", "cancel", "allow", "payment-redirect"], &rng)),
            ]
            if rng.next() % 6 == 0 { handler.append("mode", .string("shadow")) }
            if !match.members.isEmpty || rng.next() % 4 != 0 { handler.append("match", .object(match)) }
            handlers.append(.object(handler))
        }
        return .object(["defaultDecision": .string(pick(["allow", "cancel"], &rng)), "handlers": .array(handlers)])
    }

    func randomRequest(_ rng: inout SeededGenerator) -> NavigationRequest {
        let scheme = pick(["https", "http", "HTTPS", "javascript"], &rng)
        let segments = (0..<Int(rng.next() % 4)).map { _ in pick(Self.pathPieces, &rng) }
        let path = "/" + segments.joined(separator: pick(["/", "//"], &rng)) + (rng.next() % 4 == 0 ? "/" : "")
        let url =
            scheme == "javascript" ? "javascript:alert(1)" : "\(scheme)://\(pick(Self.hosts, &rng))\(path)"
        return NavigationRequest(
            url: url, method: pick(["GET", "POST", "post", "HEAD"], &rng), navigationType: pick(NavigationType.allCases, &rng),
            targetFrame: pick(TargetFrame.allCases, &rng))
    }

    @Test("indexed and linear decisions agree", arguments: TestVolume.seeds(UInt64(0)..<40, sample: 8))
    func equivalence(seed: UInt64) throws {
        var rng = SeededGenerator(state: seed)
        let policy = try PolicyCompiler().compile(randomConfig(&rng))
        for _ in 0..<300 {
            let request = try CanonicalRequest(randomRequest(&rng))
            let linear = policy.decideLinear(request)
            let indexed = policy.decideIndexed(request)
            #expect(linear == indexed, "seed \(seed): \(request.href)")
        }
    }

    @Test("a 100,000-handler chain decides like a scan")
    func largeChain() throws {
        var handlers: [JSONValue] = []
        for index in 0..<100_000 {
            let match: JSONObject =
                switch index % 5 {
                case 4: ["pathPatterns": .array([.string("/r\(index)/*")])]
                case 0: ["hosts": .array([.string("h\(index).example")])]
                case 1: ["hosts": .array([.string("*.w\(index).example")])]
                case 2: ["paths": .array([.string("/p\(index)")])]
                default: ["pathPrefixes": .array([.string("/q\(index)")])]
                }
            handlers.append(.object(["name": .string("h\(index)"), "type": .string("cancel"), "match": .object(match)]))
        }
        let policy = try PolicyCompiler().compile(.object(["handlers": .array(handlers)]))
        for url in [
            "https://h40.example/", "https://x.w99996.example/z", "https://a/p99997", "https://a/q99998/deeper",
            "https://a/P2", "https://a/r99999/x", "https://none.example/", "https://h5.example/p7",
        ] {
            let request = try CanonicalRequest(NavigationRequest(url: url))
            #expect(policy.decide(request) == policy.decideLinear(request), "\(url)")
        }
        #expect(try policy.decide(NavigationRequest(url: "https://h5.example/p7")).handler == "h5", "lowest position wins")
    }
}
