import JSONSupport
import NavigationPolicy
import PolicyHarness
import Testing

/// The harness's stand-in digest (the core links no crypto; the daemon passes libsodium's SHA-256).
let testDigest = harnessDigest

func compileImage(_ json: String, threshold: Int = PolicyImage.defaultTableThreshold) throws -> [UInt8] {
    try PolicyImage.compile(
        config: Array(json.utf8), compiler: PolicyCompiler(), sha256: testDigest, checksum: testDigest, tableThreshold: threshold)
}

func loadImage(_ bytes: [UInt8]) throws(PolicyImageError) -> CompiledPolicy {
    try PolicyImage.load(PolicyImageBytes(copying: bytes), compiler: PolicyCompiler(), checksum: testDigest).policy
}

/// Generated chains using every match form, decided from JSON and from the image.
enum GeneratedChain {
    /// A small deterministic generator (no Foundation randomness: the same chain every run).
    struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    static func hostEntry(_ random: inout Generator) -> String {
        switch random.next(10) {
        case 0: "*.w\(random.next(40)).test"
        case 1: "H\(random.next(300)).EX.TEST"
        case 2: "10.\(random.next(8)).0.0/16"
        case 3: ["@loopback", "@internal", "@private"][random.next(3)]
        case 4: "bücher\(random.next(20)).test"
        case 5: "[::ffff:127.0.0.\(random.next(4))]"
        default: "h\(random.next(300)).ex.test"
        }
    }

    static func pathEntry(_ random: inout Generator) -> String {
        ["/a\(random.next(30))", "/A\(random.next(30))/b", "/p/\(random.next(30))/", "/x\(random.next(10))/y/z"][random.next(4)]
    }

    static func list(_ random: inout Generator, count: Int, _ make: (inout Generator) -> String) -> JSONValue {
        .array((0..<count).map { _ in .string(make(&random)) })
    }

    /// `handlers` handlers, each with a few random match fields, some with long lists.
    static func config(handlers: Int, seed: UInt64, longList: Int) -> String {
        var random = Generator(state: seed)
        var chain: [JSONValue] = []
        for index in 0..<handlers {
            var match = JSONObject()
            let long = random.next(4) == 0
            if random.next(2) == 0 {
                match.append("hosts", list(&random, count: long ? longList : 1 + random.next(4), hostEntry))
            }
            if random.next(4) == 0 { match.append("paths", list(&random, count: 1 + random.next(3), pathEntry)) }
            if random.next(3) == 0 {
                match.append("pathPrefixes", list(&random, count: long ? longList : 1 + random.next(3), pathEntry))
            }
            if random.next(6) == 0 {
                match.append("pathPatterns", .array([.string("/p/*/\(random.next(30))"), .string("/a*")]))
            }
            if random.next(6) == 0 { match.append("methods", .array([.string(["GET", "POST", "put"][random.next(3)])])) }
            if random.next(6) == 0 {
                match.append("navigationTypes", .array([.string(["linkActivated", "other", "reload"][random.next(3)])]))
            }
            if random.next(6) == 0 { match.append("targetFrames", .array([.string(["main", "sub"][random.next(2)])])) }
            if random.next(5) == 0 { match.append("caseSensitive", .bool(true)) }
            var handler: JSONObject = [
                "name": .string("h\(index)"), "type": .string(["cancel", "allow", "logout", "about"][random.next(4)]),
            ]
            if !match.members.isEmpty { handler.append("match", .object(match)) }
            if random.next(7) == 0 { handler.append("mode", .string("shadow")) }
            chain.append(.object(handler))
        }
        let root: JSONObject = [
            "defaultDecision": .string(seed % 2 == 0 ? "allow" : "cancel"), "handlers": .array(chain),
        ]
        return JSONValue.object(root).serialized
    }

    static func request(_ random: inout Generator) -> NavigationRequest {
        let hosts = [
            "h\(random.next(300)).ex.test", "a.w\(random.next(40)).test", "w\(random.next(40)).test",
            "10.\(random.next(8)).3.4", "127.0.0.1", "[::1]", "localhost", "xn--bcher\(random.next(20))-kva.test",
            "other.example", "H\(random.next(300)).EX.TEST.",
        ]
        let paths = [
            "/a\(random.next(30))", "/A\(random.next(30))/b/c", "/p/\(random.next(30))/", "/x\(random.next(10))/y/z/w",
            "/", "/a\(random.next(30))/", "/p/q/\(random.next(30))", "/nothing",
        ]
        let url = "https://" + hosts[random.next(hosts.count)] + paths[random.next(paths.count)]
        return NavigationRequest(
            url: url, method: ["GET", "POST", "PUT", "HEAD"][random.next(4)],
            navigationType: [.linkActivated, .other, .reload][random.next(3)], targetFrame: [.main, .sub][random.next(2)])
    }
}

@Suite("Compiled policy image")
struct CompiledPolicyImageTests {
    @Test(
        "differential: the image and the JSON chain decide identically (decision, handler, action, location, trace)",
        arguments: [(UInt64(1), 0), (UInt64(2), 0), (UInt64(3), 64), (UInt64(4), 8)])
    func differential(seed: UInt64, threshold: Int) throws {
        let json = GeneratedChain.config(handlers: 60, seed: seed, longList: 80)
        let fromJSON = try compile(json)
        let image = try loadImage(try compileImage(json, threshold: threshold))
        var random = GeneratedChain.Generator(state: seed &* 7919)
        for _ in 0..<1500 {
            let request = GeneratedChain.request(&random)
            let expected = try fromJSON.decide(request)
            #expect(try image.decide(request) == expected, "\(request.url) \(request.method)")
            let explained = try fromJSON.decide(request, explain: true)
            #expect(try image.decide(request, explain: true) == explained, "explain \(request.url)")
        }
        #expect(
            image.links.map(\.matcher.summary) == fromJSON.links.map(\.matcher.summary),
            "validate shows the same match conditions")
    }

    @Test("large lists become tables; the decision names the entry as written, at its config position")
    func tablesNameTheWrittenEntry() throws {
        let hosts = (0..<100).map { "\"h\($0).example\"" }.joined(separator: ",")
        let json =
            #"{"handlers": [{"name": "big", "type": "cancel", "match": {"hosts": [\#(hosts), "PAY.Example.COM", "@loopback"]}}]}"#
        let policy = try loadImage(try compileImage(json))
        let trace = try #require(try policy.decide(NavigationRequest(url: "https://pay.example.com/"), explain: true).trace)
        #expect(trace.first?.matched?.first?.index == 100)
        #expect(trace.first?.matched?.first?.entry == "PAY.Example.COM")
        #expect(try policy.decide(NavigationRequest(url: "http://127.0.0.2/")).handler == "big", "the class stays inline")
        #expect(try policy.decide(NavigationRequest(url: "https://h100.example/")).handler == nil)
    }

    @Test("a flipped byte, a truncated file, a wrong version, trailing bytes are refused with where")
    func corruptImagesAreRefused() throws {
        let json =
            #"{"handlers": [{"name": "big", "type": "cancel", "match": {"hosts": [\#((0..<80).map { "\"h\($0).example\"" }.joined(separator: ","))]}}]}"#
        let image = try compileImage(json)
        #expect(throws: Never.self) { try loadImage(image) }
        for position in [0, 8, 20, 40, 60, 100, image.count / 2, image.count - 1] {
            var flipped = image
            flipped[position] ^= 0x01
            #expect(throws: PolicyImageError.self, "flipped byte \(position)") { try loadImage(flipped) }
        }
        for length in [0, 50, 95, 96, image.count / 2, image.count - 1] {
            #expect(throws: PolicyImageError.self, "truncated to \(length)") { try loadImage(Array(image.prefix(length))) }
        }
        var version = image
        version[8] = 2
        #expect(
            throws: PolicyImageError("format version 2 is not the one this build reads (1); compile the config again (at byte 8)")
        ) {
            try loadImage(version)
        }
        #expect(throws: PolicyImageError.self) { try loadImage(image + [0]) }
        #expect(throws: PolicyImageError("not a compiled policy image (wrong magic) (at byte 0)")) {
            try loadImage(
                Array(
                    "{\"handlers\":[]} and more bytes to pass the header length check, padded out to be long enough to reach 96"
                        .utf8))
        }
    }

    @Test("a valid checksum over unsorted or out-of-range tables is still refused (structure is checked, not trusted)")
    func resealedCorruptionIsRefused() throws {
        let json =
            #"{"handlers": [{"name": "big", "type": "cancel", "match": {"hosts": [\#((0..<80).map { "\"h\($0).example\"" }.joined(separator: ","))]}}]}"#
        let image = try compileImage(json)
        // Every byte after the section table, changed and the checksum recomputed: a loader
        // that trusted the checksum would read out of range or bisect unsorted keys.
        var refused = 0
        for position in stride(from: 144, to: image.count, by: 7) {
            var changed = image
            changed[position] = changed[position] &+ 0x41
            let digest = changed.withUnsafeBytes { testDigest(UnsafeRawBufferPointer(rebasing: $0[56...])) }
            changed.replaceSubrange(24..<56, with: digest)
            do {
                let policy = try loadImage(changed)
                _ = try policy.decide(NavigationRequest(url: "https://h1.example/a"), explain: true)
            } catch is PolicyImageError {
                refused += 1
            }
        }
        #expect(refused > 0)
    }

    @Test(
        "a key offset pushed past the key bytes, the length bound raised to let it through, checksum recomputed: refused"
    )
    func resealedOffsetPastTheKeysIsRefused() throws {
        let json =
            #"{"handlers": [{"name": "big", "type": "cancel", "match": {"hosts": [\#((0..<80).map { "\"h\($0).example\"" }.joined(separator: ","))]}}]}"#
        let image = try compileImage(json)
        func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
            (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << UInt32(8 * $1) }
        }
        func setU32(_ bytes: inout [UInt8], _ at: Int, _ value: UInt32) {
            for index in 0..<4 { bytes[at + index] = UInt8(truncatingIfNeeded: value >> UInt32(8 * index)) }
        }
        // The exact-host table: 80 keys, none longer than "h10.example" (found by its header,
        // so the test does not hard-code the image layout).
        let table = try #require((96..<(image.count - 8)).first { u32(image, $0) == 80 && u32(image, $0 + 4) == 11 })
        // The outside attack's shape: every key offset but the first and last, one at a time.
        for key in 1..<80 {
            var changed = image
            setU32(&changed, table + 4, 11 + 0x64_0000)
            let offset = table + 20 + key * 4  // after the header's five u32s (docs/compiled-policy.md)
            setU32(&changed, offset, u32(changed, offset) + 0x64_0000)
            let digest = changed.withUnsafeBytes { testDigest(UnsafeRawBufferPointer(rebasing: $0[56...])) }
            changed.replaceSubrange(24..<56, with: digest)
            #expect(throws: PolicyImageError.self, "key offset \(key)") { try loadImage(changed) }
        }
    }

    @Test("urlPatterns are carried as source text and compiled at load")
    func urlPatternsAreCarried() throws {
        let hosts = (0..<70).map { "\"h\($0).example\"" }.joined(separator: ",")
        let json = #"""
            {"handlers": [
              {"name": "patterns", "type": "cancel", "match": {"urlPatterns": ["https://*.shop.test/admin/*"], "hosts": [\#(hosts), "a.shop.test"]}},
              {"name": "rest", "type": "allow", "match": {"urlPatterns": [{"pathname": "/pay/*"}]}}
            ]}
            """#
        let fromJSON = try compile(json)
        let image = try loadImage(try compileImage(json))
        for url in [
            "https://a.shop.test/admin/x", "https://h3.example/admin/x", "https://h3.example/pay/1", "https://b.shop.test/admin/",
        ] {
            let request = NavigationRequest(url: url)
            #expect(try image.decide(request, explain: true) == fromJSON.decide(request, explain: true), "\(url)")
        }
    }

    @Test("an invalid config gives the same diagnostics as loading it")
    func invalidConfigIsReported() throws {
        let json = #"{"handlers": [{"name": "x", "type": "cancel", "match": {"hosts": ["*."]}}]}"#
        let issues = compileIssues { () throws(ConfigError) in try PolicyCompiler().compile(Array(json.utf8)) }
        do {
            _ = try compileImage(json)
            Issue.record("compiled an invalid config")
        } catch let error as ConfigError {
            #expect(error.issues.map(\.description) == issues)
        }
    }
}
