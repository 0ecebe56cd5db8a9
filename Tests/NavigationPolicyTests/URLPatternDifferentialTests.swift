import TestSelection
import Testing

@testable import NavigationPolicy

/// The differential check of issue 31's acceptance: generated patterns without regexp groups
/// against generated URLs (odd spellings included), between the standard's own matching
/// (`URLPattern.exec`, what `navpolicyd urlpattern exec` prints) and the policy path. A policy
/// that cancels on a pattern must cancel every URL the pattern matches; and on an allow-list
/// (`defaultDecision: cancel`), it may allow a URL only when its match form is matched too.
@Suite(.tags(.volume))
struct URLPatternDifferentialTests {
    typealias Generator = ChainIndexEquivalenceTests.SeededGenerator

    static let pathPieces = [
        "/admin", "/a", "/public", "/:name", "/*", "{/x}?", "/:id+", "/admin{/*}?", "*", "/b.json", "/:file.json",
        "/ADMIN", "/%61dmin",
    ]
    static let hostPatterns = ["*", "example.com", "*.example.com", ":sub.example.com", "{www.}?example.com"]
    static let urlHosts = ["example.com", "www.example.com", "EXAMPLE.com.", "a.b.example.com", "other.test"]
    static let urlSegments = [
        "admin", "ADMIN", "%61dmin", "a", "public", "..", ".", "%2e%2e", "admin;x", "", "%2F", "b.json", "x%2Fadmin",
        "..;",
    ]

    static func pick<T>(_ random: inout Generator, _ options: [T]) -> T {
        options[Int(random.next() % UInt64(options.count))]
    }

    /// Runs `body` on `patterns` generated patterns, each with its policy (one handler of
    /// `type` on the pattern, the other decision as default) and 20 generated URLs.
    static func forEachCase(
        seed: UInt64, patterns: Int, type: String,
        _ body: (_ json: String, _ standard: URLPattern, _ policy: CompiledPolicy, _ url: String) throws -> Void
    ) throws {
        var random = Generator(state: seed)
        let fallback = type == "cancel" ? "allow" : "cancel"
        for _ in 0..<patterns {
            let (initValue, json) = pattern(&random)
            let standard = try URLPattern(.dictionary(initValue), options: URLPattern.Options(ignoreCase: true))
            let policy = try compile(
                #"{"defaultDecision": "\#(fallback)", "handlers": [{"name": "p", "type": "\#(type)", "match": {"urlPatterns": [\#(json)]}}]}"#
            )
            for _ in 0..<20 { try body(json, standard, policy, url(&random)) }
        }
    }

    static func pattern(_ random: inout Generator) -> (URLPatternInit, String) {
        var pathname = ""
        // Each piece's group names get the piece's number: a name may not repeat in a pattern.
        for piece in 0..<(1 + random.next() % 3) {
            pathname += pick(&random, pathPieces).replacing(":name", with: ":n\(piece)")
                .replacing(":id", with: ":id\(piece)").replacing(":file", with: ":file\(piece)")
        }
        if !pathname.hasPrefix("/") { pathname = "/" + pathname }
        let hostname = pick(&random, hostPatterns)
        let search = pick(&random, ["*", "", "token=*"])
        let initValue = URLPatternInit(
            protocol: pick(&random, ["http{s}?", "https", "*"]), hostname: hostname, pathname: pathname, search: search)
        let json =
            #"{"protocol":"\#(initValue.protocol ?? "*")","hostname":"\#(hostname)","pathname":"\#(pathname)","search":"\#(search)"}"#
        return (initValue, json)
    }

    static func url(_ random: inout Generator) -> String {
        var path = ""
        for _ in 0..<(random.next() % 4) { path += "/" + pick(&random, urlSegments) }
        if random.next() % 4 == 0 { path += "/" }
        let query = pick(&random, ["", "?token=1", "?x=1"])
        return pick(&random, ["https", "http"]) + "://" + pick(&random, urlHosts) + path + query
    }

    @Test("no generated URL that a pattern matches gets past a policy that cancels on it")
    func cancelNeverAllowsWhatThePatternMatches() throws {
        var matched = 0
        try Self.forEachCase(seed: 31, patterns: 300, type: "cancel") { json, standard, policy, url in
            guard let decision = try? decide(policy, url) else { return }
            if try standard.exec(.string(url)) != nil {
                matched += 1
                #expect(decision.verdict == .cancel, "pattern \(json) matches \(url) but the policy allows it")
            }
        }
        #expect(matched > 100, "the generators should produce matches")
    }

    @Test("an allow-list allows a generated URL only when its match form is matched too")
    func allowListNeedsTheMatchForm() throws {
        try Self.forEachCase(seed: 26, patterns: 200, type: "allow") { json, standard, policy, url in
            guard let request = try? CanonicalRequest(NavigationRequest(url: url)) else { return }
            guard policy.decide(request).verdict == .allow else { return }
            // In match form a policy reads the pattern's own escapes as the URL's (`/%61dmin` is
            // `/admin` there, attack F3): the pattern as the policy compiles it must match.
            let compiled = try standard.withMatchForms()
            #expect(compiled.matches(request), "pattern \(json) allows \(url) though its match form does not match")
        }
    }
}
