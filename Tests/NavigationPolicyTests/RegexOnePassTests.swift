import Testing

@testable import NavigationPolicy
@testable import PolicyPatterns

/// Issue 41 item 3: expressions where the next scalar decides every choice run on the one-pass
/// matcher (``RegexOnePass``) instead of the Pike VM. It must give the VM's result exactly
/// (match, every group, the `i` flag), within the VM's steps and the caller's step limit.
@Suite("ECMARegex one-pass matcher")
struct RegexOnePassTests {
    func component(_ pattern: String, _ options: PatternOptions) throws -> URLPatternComponent {
        try URLPatternComponent.compile(
            pattern, component: "pathname", options: options, encode: { (text: String) throws(URLPatternError) in text })
    }

    @Test("URLPattern's usual groups run one-pass; overlapping choices stay on the VM")
    func eligibility() throws {
        for pattern in [
            "/books/:id", "/item/:id(\\d+)", "/item/(\\d+)", "/reports/:year(\\d{4})/:name([a-z\\-]+)\\.pdf", "/users/:id?",
            "/files/:path+", "/docs/:rest*", "/:lang(en|de|fr)/admin{/*}?", "/:a/:b/*",
        ] {
            #expect(try component(pattern, .pathname).runsOnePass, "\(pattern)")
        }
        #expect(try component(":sub.example.com", .hostname).runsOnePass)
        #expect(try component("token=:token([A-Za-z0-9]+)", .default).runsOnePass)
        // `[^/]+?` then `.html`: a `.` may be in the segment or start the suffix; every match
        // ends with `.html`, which the run checks first (a fixed tail), and then it is one-pass.
        #expect(try component("/blog/:slug.html", .pathname).runsOnePass)
        for pattern in ["/blog/:slug.:ext", "/((?:.*a){30}b)", "/(a|ab)", "/(\\bx)", "/((?:a?)*b)"] {
            #expect(try !component(pattern, .pathname).runsOnePass, "\(pattern)")
        }
        #expect(try !ECMARegex("a").isOnePass, "unanchored: a match can start anywhere")
        #expect(try !ECMARegex("^a").isOnePass, "no $: a match ends while another thread goes on")
    }

    /// Anchored expressions over a small alphabet, one-pass or not (both kinds are compared, so
    /// a wrong refusal is harmless and a wrong acceptance shows as a disagreement).
    static let patterns = [
        "^$", "^a$", "^(a)$", "^(a|b)$", "^(a|ab)$", "^(ab|a)(b)?$", "^(a)?(b)?$", "^([^\\/]+?)$", "^/([^\\/]+?)/([^\\/]+?)$",
        "^(?:/([^\\/]+?))?$", "^(\\d+)$", "^(\\d{2,3})(a)?$", "^(\\d+?)(1)?$", "^((?:[^\\/]+?)(?:/(?:[^\\/]+?))*)$",
        "^(?:/((?:[^\\/]+?)(?:/(?:[^\\/]+?))*))?$", "^(.*)$", "^(.*)\\.b$", "^a(?:/(.*))?$", "^(?:(a)|b)+$", "^(?:(a)|(b))*c$",
        "^(?:a(b)?)+$", "^(|a)$", "^(?:)a$", "^(a*)(b*)$", "^(a*?)(b*?)$", "^(a+)(a)$", "^(?:a|b)*?c$", "^[a-c]{2}$",
        "^(en|de|fr)/(.*)$", "^x{0,2}(y)?$", "^(?:(a)|(b)|(c))$", "^(?<n>\\d)\\.(?<m>[a-z]+)$", "^(\\w+)$", "^([^.]+?)\\.b\\.c$",
        "^/([^\\/]+?)\\.b$", "^(?:/([^\\/]+?))?\\.$", "^(a|b)+?a$", "^(?:(a)|b)*ab$", "^(a*)a$", "^(?:a|(b))a\\.(é)$",
    ]
    static let alphabet: [Character] = ["a", "b", "c", "/", ".", "1", "é"]

    static func inputs(upTo length: Int) -> [String] {
        var all = [""]
        var level = [""]
        for _ in 0..<length {
            level = level.flatMap { prefix in alphabet.map { prefix + String($0) } }
            all += level
        }
        return all
    }

    @Test("every input of up to 4 scalars gives the Pike VM's exec result, in at most one step per scalar and one")
    func agreesWithPikeVM() throws {
        let inputs = Self.inputs(upTo: 4)
        var onePass = 0
        var compared = 0
        for pattern in Self.patterns {
            for ignoreCase in [false, true] {
                let regex = try ECMARegex(pattern, ignoreCase: ignoreCase, unicodeSets: true)
                guard regex.isOnePass else { continue }
                onePass += 1
                for input in inputs {
                    let fast = regex.exec(input, stepLimit: .max)
                    let reference = regex.pikeVMExec(input)
                    #expect(fast.result == reference.result, "\(pattern) i=\(ignoreCase) on \(input.debugDescription)")
                    #expect(fast.steps <= input.unicodeScalars.count + 1, "\(pattern) on \(input.debugDescription)")
                    #expect(regex.matches(input) == (reference.result != nil))
                    #expect(regex.matches(input, stepLimit: .max).matched == (reference.result != nil))
                    compared += 1
                }
            }
        }
        #expect(onePass >= 40, "\(onePass) of \(2 * Self.patterns.count) runs one-pass")
        #expect(compared > 100_000)
    }

    @Test("the i flag folds as the VM does, on ASCII and beyond")
    func caseFolding() throws {
        let regex = try ECMARegex("^/(k+)/(σ)$", ignoreCase: true, unicodeSets: true)
        #expect(regex.isOnePass)
        for input in ["/kK\u{212A}/Σ", "/k/ς", "/K/σ", "/x/σ", "/\u{212A}/s", "/ſ/σ"] {
            #expect(regex.exec(input, stepLimit: .max).result == regex.pikeVMExec(input).result, "\(input.debugDescription)")
        }
        #expect(regex.exec("/kK\u{212A}/Σ", stepLimit: .max).result == ["/kK\u{212A}/Σ", "kK\u{212A}", "Σ"])
    }

    @Test("line terminators and non-ASCII scalars: `.` and `[^/]` as the VM reads them")
    func scalars() throws {
        let regex = try ECMARegex("^/([^\\/]+?)(?:/(.*))?$", unicodeSets: true)
        #expect(regex.isOnePass)
        for input in ["/ä/ö", "/😀/\u{2028}", "/a/b\nc", "/\u{10FFFF}/\r", "/é", "//x", "/x/"] {
            #expect(regex.exec(input, stepLimit: .max).result == regex.pikeVMExec(input).result, "\(input.debugDescription)")
        }
        #expect(regex.exec("/😀/ü", stepLimit: .max).result == ["/😀/ü", "😀", "ü"])
    }

    @Test("a run stops at its step limit without an answer: one step per scalar and one for the end")
    func stepLimit() throws {
        let regex = try ECMARegex("^/([^\\/]+?)$", unicodeSets: true)
        let input = "/" + String(repeating: "a", count: 100)
        let full = regex.exec(input, stepLimit: .max)
        #expect(full.steps == 102)
        #expect(full.result?[1] == String(repeating: "a", count: 100))
        let stopped = regex.exec(input, stepLimit: 50)
        #expect(stopped.exceeded && stopped.result == nil && stopped.steps == 51)
        #expect(regex.matches(input, stepLimit: 50).matched == nil)
        #expect(regex.exec(input, stepLimit: 102).result != nil)
    }
}
