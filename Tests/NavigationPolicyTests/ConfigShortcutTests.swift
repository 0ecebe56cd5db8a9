import JSONSupport
import Testing

@testable import NavigationPolicy

/// The config compile's shortcuts for plain entries (host names, paths) may only answer where
/// the full parsers give the very same result, and errors found without per-entry pointers
/// must still name the exact entry.
@Suite("Config compile: shortcuts for plain entries")
struct ConfigShortcutTests {
    /// Both parses of a host pattern, as comparable text.
    static func describe(_ result: Result<HostPattern.Parsed, PatternError>) -> String {
        switch result {
        case .success(.exact(let host)): "exact \(host)"
        case .success(.wildcard(let suffix)): "wildcard \(suffix)"
        case .success(.range(let range)): "range \(range.description)"
        case .success(.addressClass(let addressClass)): "class \(addressClass.entry)"
        case .failure(let error): "error \(error.reason)"
        }
    }

    static let hostNearMisses = [
        "pay.example.com", "a", "a.", "a..", ".", "..", "...", ".a", "a..b", "_dmarc.example", "-a-.b",
        "partner12.example", "www.blocked3.example", "x.example.", "x.example..", "xn--nxasmq6b.example",
        "xn--a.example", "xn--", "1.2.3.4", "127.1", "0x7f.1", "a.0x10", "a.1", "a.1.", "a.09", "a.0xg", "a.0x",
        "1a", "a1", "Pay.Example.com", "PAY.EXAMPLE.COM.", "pay.exämple.com", "pay.xn--exmple-cua.com",
        "p%61y.example", "a b", "a/b", "a@b", "a?b", "a#b", "a:80", "::1", "[::1]", "[::ffff:1.2.3.4]",
        "*", "*.", "*..", "*...", "*.a", "*.a.", "*.a..", "*.*.a", "*.1.2.3.4", "*.127.1", "*.Pay.example",
        "*.pay.exämple", "*.\u{301}a", "*.a/b", "**.a", "a.*", "a*b", "*a.example", "<a>", "a^b", "a|b",
        "a\\b", "a\u{0}b", "a\tb", "é", "a.é", "ﬀ.example", "a.ß",
    ]

    @Test("host patterns: the plain-name shortcut answers as the host parser does", arguments: hostNearMisses)
    func hostPatternAgrees(pattern: String) {
        #expect(Self.describe(HostPattern.parse(pattern)) == Self.describe(HostPattern.parseThroughHostParser(pattern)))
    }

    @Test("host patterns: random inputs over the bytes that matter")
    func hostPatternRandom() {
        let alphabet: [String] = ["a", "z", "0", "1", "9", "x", "-", "_", ".", ".", "*", "A", "%", ":", "é", "\u{301}"]
        var generator = ChainIndexEquivalenceTests.SeededGenerator(state: 0x5EED)
        var shortcutAnswers = 0
        for _ in 0..<20_000 {
            let length = Int(generator.next() % 9)
            let pattern = (0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }.joined()
            let shortcut = HostPattern.parse(pattern)
            let full = HostPattern.parseThroughHostParser(pattern)
            #expect(Self.describe(shortcut) == Self.describe(full), "\(pattern.debugDescription)")
            let tail = Substring(pattern.utf8.dropFirst(2))
            if HostPattern.plainDomain(pattern) != nil || (pattern.hasPrefix("*.") && HostPattern.plainDomain(tail) != nil) {
                shortcutAnswers += 1
            }
        }
        // The comparison means something only if the shortcut took a fair share of the inputs.
        #expect(shortcutAnswers > 1_000)
    }

    @Test("host patterns: the generated configs' shapes take the shortcut")
    func hostShortcutTaken() {
        #expect(HostPattern.plainDomain("partner12.example") == "partner12.example")
        #expect(HostPattern.plainDomain("x.example.") == "x.example")
        #expect(HostPattern.plainDomain(Substring("blocked3.example")) == "blocked3.example")
        #expect(HostPattern.plainDomain("Pay.example") == nil)
        #expect(HostPattern.plainDomain("a.1") == nil)
    }

    @Test("errors in list entries name the entry, at every position and in every list")
    func entryPointers() throws {
        let text = """
            {"handlers": [
              {"name": "ok", "type": "allow", "match": {"hosts": ["a.example"]}},
              {"name": "bad", "type": "cancel", "match": {
                "schemes": ["https", "1x"],
                "hosts": ["a.example", "a/b", "x$"],
                "paths": ["/a", "/b", "c"],
                "pathPrefixes": ["/a", "/a?b"],
                "pathPatterns": ["/a*", "/b[", "/c"],
                "methods": ["GET", "G T"],
                "navigationTypes": ["other", "linkActivated", "teleport"],
                "targetFrames": ["main", "side"]}},
              {"name": "worse", "type": "cancel", "match": {"hosts": ["a.example", 3, null], "paths": "/x"}}
            ]}
            """
        let error = #expect(throws: ConfigError.self) { try PolicyCompiler().compile(Array(text.utf8)) }
        let places = try #require(error).issues.map(\.pointer.description)
        #expect(
            places == [
                "/handlers/1/match/schemes/1", "/handlers/1/match/hosts/1", "/handlers/1/match/hosts/2",
                "/handlers/1/match/paths/2", "/handlers/1/match/pathPrefixes/1", "/handlers/1/match/pathPatterns/1",
                "/handlers/1/match/methods/1", "/handlers/1/match/navigationTypes/2",
                "/handlers/1/match/targetFrames/1", "/handlers/2/match/hosts/1", "/handlers/2/match/hosts/2",
                "/handlers/2/match/paths",
            ], "\(error.map(String.init(describing:)) ?? "")")
    }
}
