import JSONSupport
import Testing

@testable import NavigationPolicy

/// Finding F2: `%2F` and `..%2F` got past `pathPrefixes` and `pathPatterns`, because the match
/// form keeps `%2F` escaped while python `http.server` and many static servers decode it before
/// they resolve the path. A path with an encoded separator is now decided on both readings,
/// and when the readings differ the one that cancels decides.
@Suite("Encoded separators")
struct EncodedSeparatorTests {
    typealias SeededGenerator = ChainIndexEquivalenceTests.SeededGenerator

    /// The attacker's setup: cancel `/secret` and everything under it, and `/admin/*`.
    static let denyList = """
        {"defaultDecision": "allow", "handlers": [
          {"name": "secret", "type": "cancel", "match": {"pathPrefixes": ["/secret"]}},
          {"name": "admin", "type": "cancel", "match": {"pathPatterns": ["/admin/*"]}}
        ]}
        """

    /// An allow-list: only `/public/*` is allowed.
    static let allowList = """
        {"defaultDecision": "cancel", "handlers": [
          {"name": "public", "type": "allow", "match": {"pathPatterns": ["/public/*"]}}
        ]}
        """

    @Test(
        "the decoded-separator form reads %2F and %5C as / and then normalizes",
        arguments: [
            ("https://h/secret%2findex.html", "/secret/index.html"),
            ("https://h/x/..%2fsecret/index.html", "/secret/index.html"),
            ("https://h/%2fsecret/index.html", "/secret/index.html"),
            ("https://h/%2Fsecret", "/secret"),
            ("https://h/secret%2F", "/secret"),
            ("https://h/a%5Cb", "/a/b"),
            ("https://h/a%5cb%2fc", "/a/b/c"),
            ("https://h/a/b/..%2F..%2Fsecret", "/secret"),
            ("https://h/a;x%2F..%2Fb", "/b"),
            ("https://h/%2F%2F", "/"),
            ("https://h/a%2F%6Cogout", "/a/logout"),
            ("https://h/api/projects/group%2Fname", "/api/projects/group/name"),
        ])
    func decodedSeparatorForm(url: String, expected: String) throws {
        let request = try CanonicalRequest(NavigationRequest(url: url))
        #expect(request.decodedSeparatorPath?.text == expected, "\(url)")
        #expect(request.decodedSeparatorReading?.matchPath.text == expected)
        #expect(request.decodedSeparatorReading?.href == request.href, "the reading changes only the match path")
        #expect(request.matchPath.text != expected, "the plain reading keeps the escape: \(request.matchPath.text)")
    }

    @Test(
        "paths without an encoded separator have one reading",
        arguments: [
            "https://h/", "https://h/secret/x", "https://h/a%252Fb", "https://h/a%2", "https://h/a%2Gb", "https://h/a%3Fb",
            "https://h/a%5Db", "javascript:alert('%2F')", "https://h/x?y=%2F", "https://h/x#%2F",
        ])
    func oneReading(url: String) throws {
        let request = try CanonicalRequest(NavigationRequest(url: url))
        #expect(request.decodedSeparatorPath == nil, "\(url)")
        #expect(request.decodedSeparatorReading == nil)
    }

    @Test(
        "the attacker's paths (and %5C, mixed case, %2F at either end, ..%2F..%2F) are cancelled",
        arguments: [
            ("/secret%2findex.html", "secret"),
            ("/admin%2findex.html", "admin"),
            ("/x/..%2fsecret/index.html", "secret"),
            ("/%2fsecret/index.html", "secret"),
            ("/secret%2Findex.html", "secret"),
            ("/secret%5Cindex.html", "secret"),
            ("/secret%5cindex.html", "secret"),
            ("/x/..%5Csecret", "secret"),
            ("/admin%2F", "admin"),
            ("/%2Fadmin/x", "admin"),
            ("/%2Fsecret%2F", "secret"),
            ("/a/b/..%2F..%2Fsecret/x", "secret"),
            ("/x/..%2F..%2F..%2Fadmin%2Fx", "admin"),
            ("/public/..%2fSECRET", "secret"),
            // Decoded before dot segments (the re-attack): WHATWG makes these /public/secret/…
            ("/public/x%2F../../secret/f.txt", "secret"),
            ("/p/q%2F../../admin/f.txt", "admin"),
            ("/p/q%2f%2e%2e/../secret", "secret"),
            ("/public/x%5C../../secret/f.txt", "secret"),
        ])
    func attackerPathsCancelled(path: String, handler: String) throws {
        let policy = try compile(Self.denyList)
        let decision = try decide(policy, "https://app.example.com" + path)
        #expect(decision.verdict == .cancel, "\(path): \(decision)")
        #expect(decision.handler == handler, "\(path)")
        let href = try CanonicalRequest(NavigationRequest(url: "https://app.example.com" + path)).href
        #expect(decision.url == href, "the url stays the WHATWG href")
        if !path.contains("../") { #expect(href == "https://app.example.com" + path) }
    }

    @Test("decoded before dot segments: a third reading only when it differs, none in the userinfo")
    func rawDecodedReading() throws {
        let traversal = try CanonicalRequest(NavigationRequest(url: "https://app.example.com/public/x%2F../../secret/f.txt"))
        #expect(traversal.matchPath.text == "/public/secret/f.txt")
        #expect(traversal.decodedSeparatorPath == nil, "no escape is left after WHATWG resolved the dots")
        #expect(traversal.rawDecodedSeparatorPath?.text == "/secret/f.txt")
        let same = try CanonicalRequest(NavigationRequest(url: "https://app.example.com/x/..%2fsecret"))
        #expect(same.decodedSeparatorPath?.text == "/secret")
        #expect(same.rawDecodedSeparatorPath == nil, "the same as the second reading: not decided twice")
        let userinfo = try CanonicalRequest(NavigationRequest(url: "https://u%2Fx@app.example.com/a"))
        #expect(userinfo.rawDecodedSeparatorPath == nil, "an escape in the userinfo is not a path's")
        #expect(try CanonicalRequest(NavigationRequest(url: "https://app.example.com/a/b")).rawDecodedSeparatorPath == nil)
    }

    @Test("an allow-list cancels what only the plain reading allows")
    func allowListFailsClosed() throws {
        let policy = try compile(Self.allowList)
        for path in [
            "/public/..%2Fsecret", "/public%2F..%2Fsecret", "/public/..%5csecret", "/public/x/..%2F..%2Fsecret",
            "/public/x%2F../../secret/f.txt",
        ] {
            let decision = try decide(policy, "https://app.example.com" + path)
            #expect(decision.verdict == .cancel, "\(path): \(decision)")
            #expect(decision.handler == nil, "\(path): the default cancels")
        }
        // Both readings inside /public: allowed, the escape kept.
        let inside = try decide(policy, "https://app.example.com/public/a%2Fb")
        #expect(inside.verdict == .allow)
        #expect(inside.handler == "public")
        #expect(inside.url == "https://app.example.com/public/a%2Fb")
    }

    @Test("a legitimate %2F under a policy that does not care stays allowed, its url keeps %2F")
    func legitimateEncodedSlash() throws {
        let policy = try compile(Self.denyList)
        let decision = try decide(policy, "https://app.example.com/api/projects/group%2Fname")
        #expect(decision.verdict == .allow)
        #expect(decision.handler == nil)
        #expect(decision.url == "https://app.example.com/api/projects/group%2Fname")
        let templated = try compile(
            #"{"handlers": [{"name": "pay", "type": "payment-redirect", "match": {"pathPrefixes": ["/api"]}, "#
                + #""location": "https://checkout.example.com/?target={url}"}]}"#)
        let redirected = try decide(templated, "https://app.example.com/api/projects/group%2Fname")
        #expect(redirected.handler == "pay")
        let target = "https%3A%2F%2Fapp.example.com%2Fapi%2Fprojects%2Fgroup%252Fname"
        #expect(redirected.location == "https://checkout.example.com/?target=" + target, "{url} encodes the href")
    }

    @Test("explain says the path was read two ways and which reading decided")
    func explained() throws {
        let policy = try compile(Self.denyList)
        let attack = try policy.decide(NavigationRequest(url: "https://app.example.com/x/..%2fsecret/index.html"), explain: true)
        #expect(attack.verdict == .cancel)
        #expect(attack.handler == "secret")
        let reading = try #require(attack.pathReading)
        #expect(reading.contains(#"match form "/x/..%2Fsecret/index.html""#), "\(reading)")
        #expect(reading.contains(#"decoded-separator form "/secret/index.html""#), "\(reading)")
        #expect(reading.contains("the decoded-separator reading cancels and decided"), "\(reading)")
        #expect(attack.trace?.last?.handler == "secret", "the trace is the deciding reading's")
        #expect(attack.trace?.last?.outcome == .decided)
        #expect(attack.jsonObject["pathReading"] == .string(reading))

        let alike = try policy.decide(NavigationRequest(url: "https://app.example.com/api/a%2Fb"), explain: true)
        #expect(alike.pathReading?.contains("both readings decide allow by defaultDecision") == true, "\(alike)")

        let plain = try policy.decide(NavigationRequest(url: "https://app.example.com/secret/x"), explain: true)
        #expect(plain.pathReading == nil)
        #expect(plain.jsonObject["pathReading"] == nil)

        // The written form matches jsonObject (the HTTP API writes decisions directly).
        var writer = JSONWriter()
        attack.writeOpenObject(to: &writer)
        writer.writeRaw("}")
        let written = String(decoding: writer.bytes, as: UTF8.self)
        #expect(written.hasSuffix(#","pathReading":"\#(reading.replacing("\"", with: "\\\""))"}"#), "\(written)")
    }

    /// Paths without an encoded separator decide exactly as the plain reading does; paths with
    /// one never allow what either reading cancels, and agree with the plain reading whenever the
    /// readings agree.
    @Test("seeded differential: decide against the plain and decoded-separator readings")
    func differential() throws {
        var random = SeededGenerator(state: 0x2F2F_5C5C)
        let segments = [
            "a", "b", "admin", "secret", "public", "Admin", ".", "..", "", "x;p", "%41", "%2e", "%2e%2e", "a%20b", "%252F", "%",
            "index.html",
        ]
        let separators = ["%2F", "%2f", "%5C", "%5c"]
        let entries = ["/a", "/admin", "/secret", "/public", "/a/b", "/"]
        let patterns = ["/admin/*", "/*/secret/*", "/public/*", "/a*", "/*.html", "/a/?"]
        var withEscapes = 0
        for round in 0..<200 {
            var handlers: [String] = []
            for index in 0..<Int.random(in: 1...6, using: &random) {
                let type = Bool.random(using: &random) ? "cancel" : "allow"
                let match: String
                switch Int.random(in: 0..<3, using: &random) {
                case 0: match = #""paths": ["\#(entries.randomElement(using: &random) ?? "/")"]"#
                case 1: match = #""pathPrefixes": ["\#(entries.randomElement(using: &random) ?? "/")"]"#
                default: match = #""pathPatterns": ["\#(patterns.randomElement(using: &random) ?? "/*")"]"#
                }
                handlers.append(#"{"name": "h\#(index)", "type": "\#(type)", "match": {\#(match)}}"#)
            }
            let fallback = Bool.random(using: &random) ? "allow" : "cancel"
            let policy = try compile(#"{"defaultDecision": "\#(fallback)", "handlers": [\#(handlers.joined(separator: ","))]}"#)
            for _ in 0..<40 {
                var path = ""
                for position in 0..<Int.random(in: 1...5, using: &random) {
                    // The first separator is a real `/`: an escaped one would end the host.
                    let escaped = position > 0 && round % 2 == 1 && Int.random(in: 0..<3, using: &random) == 0
                    path += (escaped ? separators.randomElement(using: &random) ?? "%2F" : "/")
                    path += segments.randomElement(using: &random) ?? ""
                }
                let request = try CanonicalRequest(NavigationRequest(url: "https://app.example.com" + path))
                let decision = policy.decide(request)
                let plain = policy.decideLinear(request)
                let readings = [request.decodedSeparatorReading, request.rawDecodedSeparatorReading].compactMap { $0 }
                guard !readings.isEmpty else {
                    #expect(decision == plain, "\(path)")
                    #expect(policy.decide(request, explain: true).pathReading == nil)
                    continue
                }
                withEscapes += 1
                // The decoded-separator form is a fixed point: normalized again it stays, and it
                // has no encoded separator left (so it never has readings of its own).
                if let decodedForm = request.decodedSeparatorPath {
                    #expect(MatchPath(pathname: decodedForm.text, isOpaque: false) == decodedForm, "\(path)")
                    let reparsed = try CanonicalRequest(NavigationRequest(url: "https://app.example.com" + decodedForm.text))
                    #expect(reparsed.decodedSeparatorPath == nil && reparsed.matchPath == decodedForm, "\(path)")
                }
                let others = readings.map { policy.decideLinear($0) }
                if plain.verdict == .cancel || others.contains(where: { $0.verdict == .cancel }) {
                    #expect(decision.verdict == .cancel, "\(path): plain \(plain), others \(others)")
                }
                if others.allSatisfy({ $0 == plain }) { #expect(decision == plain, "\(path)") }
                #expect(decision == plain || others.contains(decision), "\(path): one reading's decision")
                #expect(decision.url == request.href)
                let explained = policy.decide(request, explain: true)
                #expect(explained.verdict == decision.verdict && explained.handler == decision.handler, "\(path)")
                #expect(explained.pathReading != nil)
            }
        }
        #expect(withEscapes > 500, "the generator produced \(withEscapes) paths with an encoded separator")
    }
}
