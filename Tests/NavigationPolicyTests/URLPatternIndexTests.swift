import JSONSupport
import TestSelection
import Testing

@testable import NavigationPolicy
@testable import PolicyAuthoring

/// The chain index over `match.urlPatterns` (issue 31): its keys, its soundness (indexed and
/// linear chains decide identically on random patterns × random URLs, in every reading), and
/// that thousands of patterns with distinct hosts or paths leave a request few candidates.
@Suite("URLPattern chain index", .tags(.volume))
struct URLPatternIndexTests {
    typealias Generator = ChainIndexEquivalenceTests.SeededGenerator

    static func keys(_ pattern: String) throws -> URLPatternIndexKeys {
        try URLPattern(.string(pattern), options: URLPattern.Options(ignoreCase: true)).indexKeys
    }

    @Test("keys: fixed host, wildcard-label host, optional label, leading whole segments")
    func keyDerivation() throws {
        let exact = try Self.keys("https://Example.COM/Admin/*")
        #expect(exact.exactHosts == ["example.com"] && exact.hostSuffixes.isEmpty)
        #expect(exact.pathPrefix == "/admin", "the wildcard's prefix \"/\" closes the segment")
        let wildcard = try Self.keys("https://*.example.com/books/:id")
        #expect(wildcard.exactHosts.isEmpty && wildcard.hostSuffixes == ["example.com"])
        #expect(wildcard.pathPrefix == "/books", "the :id group's prefix \"/\" closes the segment")
        let optional = try Self.keys("https://{:sub.}?example.com/adm*")
        #expect(optional.exactHosts == ["example.com"] && optional.hostSuffixes == ["example.com"])
        #expect(optional.pathPrefix == "/", "\"adm\" may continue (\"/administrator\"), so only \"/\" is whole")
        let unanchored = try Self.keys("https://*example.com/x")
        #expect(unanchored.exactHosts == ["example.com"] && unanchored.hostSuffixes == ["com"])
        let any = try Self.keys("https://*/*")
        #expect(any.anyHost && any.pathPrefix == nil)
        let object = try URLPattern(.dictionary(URLPatternInit(pathname: "/exact")), options: .init(ignoreCase: false))
        #expect(object.indexKeys.anyHost && object.indexKeys.pathPrefix == "/exact")
    }

    static let hostPatterns = [
        "*", "example.com", "*.example.com", ":sub.example.com", "{www.}?example.com", "{:sub.}?example.com",
        "*example.com", "b.example.com", "example.*", "[\\\\:\\\\:1]", "127.0.0.1", "xn--bcher-kva.example", "",
    ]
    static let pathPatterns = [
        "/admin/*", "/Admin", "/adm*", "/books/:id", "/books/:id?", "/a{/b}?/c", "/:x/secret", "*", "/a/b/*",
        "/%61dmin/*", "/admin", "{/x}?/y", "/a//b", "/(a|b)/*", "/x:y", "/pub/:f.json", "/A/B",
    ]
    static let urlHosts = [
        "example.com", "EXAMPLE.com", "www.example.com", "a.b.example.com", "b.example.com", "badexample.com",
        "example.org", "[::1]", "127.0.0.1", "xn--bcher-kva.example", "bücher.example", "example.com.",
    ]
    static let urlSegments = [
        "admin", "ADMIN", "Admin", "%61dmin", "adm", "administrator", "books", "7", "secret", "a", "b", "c", "x",
        "y", "A", "B", "..", ".", "%2e%2e", "admin;x", "", "%2F", "pub", "f.json", "x%2Fadmin", "%C3%BC",
    ]

    static func pick<T>(_ random: inout Generator, _ options: [T]) -> T {
        options[Int(random.next() % UInt64(options.count))]
    }

    static func randomPattern(_ random: inout Generator) -> String {
        let host = pick(&random, hostPatterns)
        let path = pick(&random, pathPatterns)
        switch random.next() % 3 {
        case 0 where path.hasPrefix("/"):
            let scheme = pick(&random, ["https", "http{s}?", "*"])
            return #""\#(scheme)://\#(host.isEmpty ? "*" : host)\#(path)""#
        default:
            let search = pick(&random, ["*", "token=*"])
            return #"{"hostname": "\#(host)", "pathname": "\#(path)", "search": "\#(search)"}"#
        }
    }

    static func randomURL(_ random: inout Generator) -> String {
        var path = ""
        for _ in 0..<(random.next() % 4) { path += "/" + pick(&random, urlSegments) }
        if random.next() % 4 == 0 { path += "/" }
        let scheme = pick(&random, ["https", "http", "https", "foo"])
        let query = pick(&random, ["", "?token=1"])
        return scheme + "://" + pick(&random, urlHosts) + path + query
    }

    static func randomPolicy(_ random: inout Generator) throws -> CompiledPolicy {
        var handlers: [String] = []
        for index in 0..<(4 + random.next() % 10) {
            let patterns = (0..<(1 + random.next() % 3)).map { _ in randomPattern(&random) }
            let type = pick(&random, ["cancel", "allow"])
            let caseSensitive = random.next() % 4 == 0
            handlers.append(
                #"{"name": "h\#(index)", "type": "\#(type)", "match": {"caseSensitive": \#(caseSensitive), "urlPatterns": [\#(patterns.joined(separator: ", "))]}}"#
            )
        }
        let fallback = pick(&random, ["allow", "cancel"])
        return try compile(#"{"defaultDecision": "\#(fallback)", "handlers": [\#(handlers.joined(separator: ", "))]}"#)
    }

    @Test(
        "indexed and linear chains decide identically on random patterns × URLs",
        arguments: TestVolume.seeds(UInt64(0)..<30, sample: 6))
    func soundness(seed: UInt64) throws {
        var random = Generator(state: seed &+ 3_100)
        let policy = try Self.randomPolicy(&random)
        for _ in 0..<150 {
            let url = Self.randomURL(&random)
            guard let request = try? CanonicalRequest(NavigationRequest(url: url)) else { continue }
            #expect(policy.decideIndexed(request) == policy.decideLinear(request), "seed \(seed): \(url) (match form)")
            if let standard = request.standardURLReading {
                #expect(
                    policy.decideIndexed(standard) == policy.decideLinear(standard), "seed \(seed): \(url) (standard)")
            }
            #expect(policy.decide(request) == policy.decideLinearAllReadings(request), "seed \(seed): \(url)")
        }
    }

    @Test("5,000 handlers with distinct hosts and paths leave a request a handful of candidates")
    func fewCandidates() throws {
        var handlers: [String] = []
        for index in 0..<5_000 {
            let pattern =
                switch index % 3 {
                case 0: #""https://h\#(index).example/*""#
                case 1: #""https://*.w\#(index).example/docs/*""#
                default: #"{"pathname": "/p\#(index)/:id"}"#
                }
            handlers.append(#"{"name": "h\#(index)", "type": "cancel", "match": {"urlPatterns": [\#(pattern)]}}"#)
        }
        let policy = try compile(#"{"handlers": [\#(handlers.joined(separator: ", "))]}"#)
        let index = ChainIndex(links: policy.links)
        for (url, handler) in [
            ("https://h4998.example/x", "h4998"), ("https://a.w4999.example/docs/1", "h4999"),
            ("https://any.example/p4997/7", "h4997"), ("https://none.example/nothing", nil),
        ] {
            let request = try CanonicalRequest(NavigationRequest(url: url))
            #expect(index.candidates(for: request).count <= 2, "\(url)")
            #expect(policy.decide(request).handler == handler, "\(url)")
        }
    }

    @Test("--coverage counts each urlPatterns entry")
    func coverage() throws {
        let policy = try compile(
            #"""
            {"handlers": [
              {"name": "admin", "type": "cancel", "match": {"urlPatterns": ["https://example.com/admin/*", {"pathname": "/root/*"}]}}
            ]}
            """#)
        var coverage = PolicyCoverage(policy: policy)
        #expect(coverage.items.count == 3)
        coverage.record(try policy.decide(NavigationRequest(url: "https://example.com/admin/x"), explain: true))
        let missing = coverage.items.filter { !$0.covered }.map { $0.handler + " " + ($0.entry ?? "") }
        #expect(missing == [#"admin urlPatterns[1] "{"pathname":"/root/*"}""#])
    }
}
