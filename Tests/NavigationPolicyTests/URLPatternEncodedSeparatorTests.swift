import PolicyPatterns
import Testing

@testable import NavigationPolicy

/// Outside finding: `urlPatterns` were easier to dodge than `pathPatterns` through `%2F`/`%5C`.
/// A server that decodes them serves `/admin/` for `/admin%2F`; the decoded-separator reading
/// gave `urlPatterns` only its match form `/admin` (trailing `/` dropped, so `/admin/*` did
/// not match) and the standard reading kept the escape. The decoded readings now also present
/// their path as the standard spells it (``CanonicalRequest/decodedSeparatorStandardReading``).
@Suite("URLPattern and encoded separators")
struct URLPatternEncodedSeparatorTests {
    /// The attacker's policy, padded past ``CompiledPolicy/indexThreshold`` when `indexed`, so the
    /// chain index (``URLPatternIndex``) is the engine `decide` uses.
    static func policy(indexed: Bool) -> String {
        let padding =
            indexed
            ? (0..<6).map { #"{"name": "pad\#($0)", "type": "cancel", "match": {"hosts": ["pad\#($0).test"]}}"# } : []
        let handlers =
            [
                #"{"name": "admin", "type": "cancel", "match": {"urlPatterns": ["https://app.test/admin/*"]}}"#,
                #"{"name": "secret", "type": "cancel", "match": {"urlPatterns": [{"hostname": "app.test", "pathname": "/secret/*"}]}}"#,
                #"{"name": "pp", "type": "cancel", "match": {"pathPatterns": ["/pp/*"]}}"#,
            ] + padding
        return #"{"defaultDecision": "allow", "handlers": [\#(handlers.joined(separator: ","))]}"#
    }

    /// Each spelling and the handler that must cancel it (nil: allowed).
    static let cases: [(String, String?)] = [
        ("/admin/", "admin"), ("/admin%2F", "admin"), ("/admin%5C", "admin"), ("/admin%2f", "admin"),
        ("/admin%5c", "admin"), ("/admin%2Fx", "admin"), ("/admin%2F%2F", "admin"), ("/x/..%2Fadmin/", "admin"),
        ("/x/..%2fadmin%2F", "admin"), ("/p/q%2F../../admin%2F", "admin"), ("/secret%2F", "secret"),
        ("/secret%5C", "secret"), ("/pp%2F", "pp"), ("/a%2Fdmin/", nil), ("/admin%2Fx/..%2F..", nil), ("/adminx%2F", nil),
        ("/admin", nil),
    ]

    @Test(
        "every engine cancels every spelling of the directory: decide, the linear walk, explain, the image",
        arguments: [false, true])
    func everyEngine(indexed: Bool) throws {
        let json = Self.policy(indexed: indexed)
        let policy = try compile(json)
        let image = try loadImage(try compileImage(json))
        for (path, handler) in Self.cases {
            let request = try CanonicalRequest(NavigationRequest(url: "https://app.test" + path))
            let decided = policy.decide(request)
            #expect(decided.handler == handler, "\(path): \(decided)")
            #expect(decided.verdict == (handler == nil ? .allow : .cancel), "\(path)")
            #expect(policy.decideLinearAllReadings(request) == decided, "\(path): the linear walk")
            let explained = policy.decide(request, explain: true)
            #expect(explained.verdict == decided.verdict && explained.handler == decided.handler, "\(path): explain")
            #expect(image.decide(request) == decided, "\(path): the compiled image")
            #expect(image.decide(request, explain: true) == explained, "\(path): the compiled image, explained")
        }
    }

    @Test(
        "the decoded readings' standard pathname keeps the trailing slash",
        arguments: [
            ("/admin%2F", "/admin/"), ("/admin%5c", "/admin/"), ("/admin%2F%2F", "/admin//"), ("/x/..%2Fadmin/", "/admin/"),
            ("/a;x%2F", "/a;x/"), ("/%61dmin%2F", "/%61dmin/"),
        ])
    func decodedPathname(path: String, expected: String) throws {
        let request = try CanonicalRequest(NavigationRequest(url: "https://app.test" + path))
        let reading = try #require(request.decodedSeparatorStandardReading, "\(path)")
        #expect(reading.standardPathname == expected)
        #expect(reading.readsURLAsStandard && reading.href == request.href, "only the reading's path changes")
        #expect(reading.matchPath == request.decodedSeparatorPath, "other conditions read the decoded match form")
        #expect(URLPattern.values(of: reading)[URLPattern.pathnameIndex] == expected)
    }

    @Test("the reading decoded before dot segments has its own standard pathname")
    func rawDecodedPathname() throws {
        // WHATWG resolves `..` first: `/p/admin%2F`; decoding first gives `/admin/`.
        let request = try CanonicalRequest(NavigationRequest(url: "https://app.test/p/q%2F../../admin%2F"))
        let raw = try #require(request.rawDecodedSeparatorStandardReading)
        #expect(raw.standardPathname == "/admin/")
        #expect(request.decodedSeparatorStandardReading?.standardPathname == "/p/admin/")
    }

    @Test("paths without an encoded separator have no decoded standard reading (nothing computed for them)")
    func noSeparator() throws {
        for url in ["https://app.test/admin/", "https://app.test/%61dmin/x", "https://app.test/x?r=%2F", "javascript:a%2Fb"] {
            let request = try CanonicalRequest(NavigationRequest(url: url))
            #expect(request.decodedSeparatorStandardReading == nil, "\(url)")
            #expect(request.rawDecodedSeparatorStandardReading == nil, "\(url)")
        }
    }

    @Test("explain names the decoded path as the standard spells it")
    func explained() throws {
        let policy = try compile(Self.policy(indexed: false))
        let decision = try policy.decide(NavigationRequest(url: "https://app.test/admin%2F"), explain: true)
        #expect(decision.handler == "admin")
        let reading = try #require(decision.pathReading)
        #expect(reading.contains(#"the URLPattern standard's form of the decoded path "app.test/admin/""#), "\(reading)")
    }

    @Test("an allow-list of urlPatterns still allows its own decoded paths and fails closed on the rest")
    func allowList() throws {
        let policy = try compile(
            #"{"defaultDecision": "cancel", "handlers": [{"name": "public", "type": "allow", "match": {"urlPatterns": [{"pathname": "/public/*"}]}}]}"#
        )
        #expect(try decide(policy, "https://app.test/public/a%2Fb").verdict == .allow)
        #expect(try decide(policy, "https://app.test/public/..%2Fsecret/").verdict == .cancel)
    }
}
