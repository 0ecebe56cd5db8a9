import Testing

@testable import NavigationPolicy
@testable import PolicyPatterns

/// The pieces of the URLPattern implementation below the constructor: tokenizer, parser,
/// the generated regular expressions (what the regex engine receives), canonicalization,
/// and errors that say what is wrong and where.
struct URLPatternCoreTests {
    private func regexp(_ pattern: String, _ options: PatternOptions) throws -> String {
        let parts = try PatternParser.parse(pattern, options: options) { $0 }
        return PatternRegexpGeneration.generate(parts, options: options).regexp
    }

    @Test("the tokenizer splits names, regexp groups, modifiers and escapes")
    func tokenizer() throws {
        let tokens = try PatternTokenizer.tokenize(#"/:id(\d+)?{x}*\:"#, policy: .strict)
        #expect(
            tokens.map(\.kind) == [.char, .name, .regexp, .otherModifier, .open, .char, .close, .asterisk, .escapedChar, .end])
        #expect(tokens.map(\.value) == ["/", "id", #"\d+"#, "?", "{", "x", "}", "*", ":", ""])
        #expect(tokens.map(\.index) == [0, 1, 4, 9, 10, 11, 12, 13, 14, 16])
    }

    @Test("strict tokenizing refuses, lenient tokenizing keeps an invalid-char token")
    func tokenizerPolicies() throws {
        #expect(throws: URLPatternError.self) { try PatternTokenizer.tokenize("/(?x)", policy: .strict) }
        let lenient = try PatternTokenizer.tokenize("/(?x)", policy: .lenient)
        #expect(lenient.first { $0.kind == .invalidChar }?.value == "(")
    }

    @Test("generated regular expressions follow the standard's forms")
    func generatedRegexps() throws {
        #expect(try regexp("/foo/:bar", .pathname) == #"^\/foo(?:\/([^\/]+?))$"#)
        #expect(try regexp("/foo/:bar*", .pathname) == #"^\/foo(?:\/((?:[^\/]+?)(?:\/(?:[^\/]+?))*))?$"#)
        #expect(try regexp("/*", .pathname) == #"^(?:\/(.*))$"#)
        #expect(try regexp(":sub.example.com", .hostname) == #"^([^\.]+?)\.example\.com$"#)
        #expect(try regexp("http{s}?", .default) == "^http(?:s)?$")
        #expect(try regexp(":x", .default) == "^([^]+?)$")
        #expect(try regexp(#"/(\d+)"#, .pathname) == #"^(?:\/(\d+))$"#)
    }

    @Test("pattern strings are normalized as the standard writes them")
    func patternStrings() throws {
        func normalized(_ pattern: String, _ options: PatternOptions) throws -> String {
            PatternStringGeneration.generate(try PatternParser.parse(pattern, options: options) { $0 }, options: options)
        }
        #expect(try normalized("{/foo}", .pathname) == "/foo")
        #expect(try normalized("/:id([^\\/]+?)", .pathname) == "/:id")
        #expect(try normalized("/(.*)", .pathname) == "/*")
        #expect(try normalized("{:a}b", .default) == "{:a}b")
    }

    @Test("errors name the component and the offset")
    func errors() {
        #expect(throws: URLPatternError(.parser, "the group name 'a' is used twice", component: "pathname", offset: 4)) {
            try URLPattern(.dictionary(URLPatternInit(pathname: "/:a/:a")))
        }
        do {
            _ = try URLPattern(.dictionary(URLPatternInit(pathname: "/{foo")))
            Issue.record("an unclosed group was accepted")
        } catch {
            #expect(error.kind == .parser && error.component == "pathname" && error.offset == 5)
            #expect(error.description.hasPrefix("pathname pattern, offset 5: "))
        }
        do {
            _ = try URLPattern(.dictionary(URLPatternInit(hostname: "exa mple.com")))
            Issue.record("a hostname with a space was accepted")
        } catch {
            #expect(error.kind == .canonicalization && error.component == "hostname")
        }
        #expect(throws: URLPatternError.self) { try URLPattern(.string("/relative")) }
    }

    @Test("components canonicalize with the project's URL parser")
    func canonicalization() throws {
        #expect(try URLPatternCanonicalization.hostname("EXAMPLE.com") == "example.com")
        #expect(try URLPatternCanonicalization.hostname("münchen.de") == "xn--mnchen-3ya.de")
        #expect(try URLPatternCanonicalization.hostname("0x7f.1") == "127.0.0.1")
        // A pattern's port keeps 443 (no protocol: no default port, whatwg/urlpattern PR 286); an
        // input's port is canonicalized with its protocol.
        #expect(try URLPatternCanonicalization.port("443") == "443")
        #expect(try URLPatternCanonicalization.port("443", protocolValue: "https") == "")
        #expect(try URLPatternCanonicalization.port("8080x") == "8080")
        #expect(throws: URLPatternError.self) { try URLPatternCanonicalization.port("x") }
        #expect(URLPatternCanonicalization.pathname("/a/../b") == "/b")
        #expect(URLPatternCanonicalization.pathname("foo bar") == "foo%20bar")
        #expect(URLPatternCanonicalization.pathname("./x") == "./x")
        #expect(URLPatternCanonicalization.search("a b#c") == "a%20b%23c")
        #expect(URLPatternCanonicalization.opaquePathname("x y?z") == "x y")
    }

    @Test("exec on a parsed URL record reads the same components as exec on its string")
    func execRecord() throws {
        let pattern = try URLPattern(.string("https://*.example.com/books/:id"))
        let url = try URLRecord.parse("https://Shop.EXAMPLE.com/books/12?x#y")
        let fromRecord = try #require(pattern.exec(url))
        let fromString = try #require(try pattern.exec(.string(url.href)))
        #expect(fromRecord == fromString)
        #expect(fromRecord[component: "pathname"]?[group: "id"] == "12")
        #expect(fromRecord[component: "hostname"]?[group: "0"] == "shop")
        #expect(!pattern.hasRegExpGroups)
        #expect(try URLPattern(.string("https://example.com/:id(\\d+)")).hasRegExpGroups)
    }

    @Test("a catastrophic regexp group is matched in linear time, not refused and not backtracked")
    func catastrophicRegexp() throws {
        // (a+)+b backtracks 2^n ways on a run of a's without a b; a Pike VM walks it once. The
        // test needs no timing assertion: a backtracking engine would not finish at n = 20,000.
        let pattern = try URLPattern(.dictionary(URLPatternInit(pathname: "/(a+)+b")))
        let longRun = "/" + String(repeating: "a", count: 20_000) + "c"
        #expect(try pattern.exec(.dictionary(URLPatternInit(pathname: longRun))) == nil)
        let matched = try #require(try pattern.exec(.dictionary(URLPatternInit(pathname: "/aaab"))))
        #expect(matched[component: "pathname"]?[group: "0"] == "aaa")
    }

    @Test("a regexp construct the engine does not run is refused with the component named")
    func refusedRegexp() {
        do {
            _ = try URLPattern(.dictionary(URLPatternInit(pathname: "/(a(?=b))")))
            Issue.record("a lookahead was accepted")
        } catch {
            #expect(error.kind == .regexp && error.component == "pathname")
        }
    }
}
