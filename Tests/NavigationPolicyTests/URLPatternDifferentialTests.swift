import Testing

@testable import NavigationPolicy

/// The differential check of issue 31's acceptance: generated patterns without regexp groups
/// against generated URLs (odd spellings included), between the standard's own matching
/// (`URLPattern.exec`, what `navpolicyd urlpattern exec` prints) and the policy path. A policy
/// that cancels on a pattern must cancel every URL the pattern matches; and on an allow-list
/// (`defaultDecision: cancel`), it may allow a URL only when its match form is matched too.
struct URLPatternDifferentialTests {
    /// SplitMix64: deterministic, so a failure names a reproducible case.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func pick<T>(_ options: [T]) -> T {
            options[Int(next() % UInt64(options.count))]
        }
    }

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

    static func pattern(_ random: inout Generator) -> (URLPatternInit, String) {
        var pathname = ""
        // Each piece's group names get the piece's number: a name may not repeat in a pattern.
        for piece in 0..<(1 + random.next() % 3) {
            pathname += random.pick(pathPieces).replacing(":name", with: ":n\(piece)")
                .replacing(":id", with: ":id\(piece)").replacing(":file", with: ":file\(piece)")
        }
        if !pathname.hasPrefix("/") { pathname = "/" + pathname }
        let hostname = random.pick(hostPatterns)
        let search = random.pick(["*", "", "token=*"])
        let initValue = URLPatternInit(
            protocol: random.pick(["http{s}?", "https", "*"]), hostname: hostname, pathname: pathname, search: search)
        let json =
            #"{"protocol":"\#(initValue.protocol ?? "*")","hostname":"\#(hostname)","pathname":"\#(pathname)","search":"\#(search)"}"#
        return (initValue, json)
    }

    static func url(_ random: inout Generator) -> String {
        var path = ""
        for _ in 0..<(random.next() % 4) { path += "/" + random.pick(urlSegments) }
        if random.next() % 4 == 0 { path += "/" }
        let query = random.pick(["", "?token=1", "?x=1"])
        return random.pick(["https", "http"]) + "://" + random.pick(urlHosts) + path + query
    }

    @Test("no generated URL that a pattern matches gets past a policy that cancels on it")
    func cancelNeverAllowsWhatThePatternMatches() throws {
        var random = Generator(state: 31)
        var matched = 0
        for _ in 0..<300 {
            let (initValue, json) = Self.pattern(&random)
            let standard = try URLPattern(.dictionary(initValue), options: URLPattern.Options(ignoreCase: true))
            let policy = try compile(
                #"{"defaultDecision": "allow", "handlers": [{"name": "p", "type": "cancel", "match": {"urlPatterns": [\#(json)]}}]}"#
            )
            for _ in 0..<20 {
                let url = Self.url(&random)
                guard let decision = try? decide(policy, url) else { continue }
                if try standard.exec(.string(url)) != nil {
                    matched += 1
                    #expect(decision.verdict == .cancel, "pattern \(json) matches \(url) but the policy allows it")
                }
            }
        }
        #expect(matched > 100, "the generators should produce matches")
    }

    @Test("an allow-list allows a generated URL only when its match form is matched too")
    func allowListNeedsTheMatchForm() throws {
        var random = Generator(state: 26)
        for _ in 0..<200 {
            let (initValue, json) = Self.pattern(&random)
            let standard = try URLPattern(.dictionary(initValue), options: URLPattern.Options(ignoreCase: true))
            let policy = try compile(
                #"{"defaultDecision": "cancel", "handlers": [{"name": "p", "type": "allow", "match": {"urlPatterns": [\#(json)]}}]}"#
            )
            for _ in 0..<20 {
                let url = Self.url(&random)
                guard let request = try? CanonicalRequest(NavigationRequest(url: url)) else { continue }
                let decision = policy.decide(request)
                guard decision.verdict == .allow else { continue }
                #expect(standard.matches(request), "pattern \(json) allows \(url) though its match form does not match")
            }
        }
    }
}
