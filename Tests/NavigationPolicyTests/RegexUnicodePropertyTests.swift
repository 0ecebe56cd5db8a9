import Testing

@testable import NavigationPolicy
@testable import PolicyPatterns
@testable import URLStandard

/// Issue 40 item 4: `\p{…}` and `\P{…}` as ECMAScript defines them for the `u` and `v` flags, from
/// the Unicode version of the IDNA tables (17.0.0).
struct RegexUnicodePropertyTests {
    private func accepts(_ pattern: String, _ input: String, ignoreCase: Bool = false, v: Bool = false) throws -> Bool {
        try ECMARegex("^(?:" + pattern + ")$", ignoreCase: ignoreCase, unicodeSets: v).matches(input)
    }

    private func error(_ pattern: String, v: Bool = false) -> ECMARegexError? {
        do {
            _ = try ECMARegex(pattern, unicodeSets: v)
            return nil
        } catch {
            return error
        }
    }

    @Test("the tables are Unicode 17.0: a letter new in 17.0 is assigned, one new in 18.0 is not")
    func unicodeVersion() throws {
        #expect(ECMARegex.unicodePropertyVersion == IDNATables.unicodeVersion)
        #expect(try accepts("\\p{Assigned}", "\u{10940}"))  // SIDETIC LETTER N01, Unicode 17.0
        #expect(try accepts("\\p{Script=Sidetic}", "\u{10940}"))
        #expect(try !accepts("\\p{Assigned}", "\u{0558}"))  // unassigned in 17.0, assigned in 18.0
        // Every scalar but the unassigned ones, surrogates and private use included (UCD 17.0.0).
        let assigned = UnicodeProperty.lookup(name: nil, value: "Assigned")
        guard case .set(let set) = assigned else { throw Unexpected(assigned) }
        #expect(set.ranges.reduce(0) { $0 + Int($1.upperBound - $1.lowerBound) + 1 } == 299_382)
    }

    @Test("General_Category: values, groups, every spelling ECMAScript accepts")
    func generalCategory() throws {
        for spelling in ["Lu", "Uppercase_Letter", "gc=Lu", "General_Category=Uppercase_Letter", "gc=Uppercase_Letter"] {
            #expect(try accepts("\\p{\(spelling)}", "Ä"), "\(spelling)")
            #expect(try !accepts("\\p{\(spelling)}", "ä"), "\(spelling)")
        }
        for letter in ["a", "é", "ж", "中", "ß", "ǅ"] { #expect(try accepts("\\p{L}", letter), "\(letter)") }
        #expect(try !accepts("\\p{Letter}", "1"))
        #expect(try accepts("\\p{LC}", "ǅ") && !accepts("\\p{Cased_Letter}", "中"))
        #expect(try accepts("\\p{digit}", "\u{0663}") && accepts("\\p{Nd}", "7") && !accepts("\\p{Nd}", "\u{2167}"))
        #expect(try accepts("\\p{Nl}", "\u{2167}") && accepts("\\p{N}", "\u{2167}"))
        #expect(try accepts("\\p{Combining_Mark}", "\u{0301}") && accepts("\\p{Mn}", "\u{0301}"))
        #expect(try accepts("\\p{punct}", "!") && accepts("\\p{Po}", "!") && !accepts("\\p{P}", "+"))
        #expect(try accepts("\\p{Sm}", "+") && accepts("\\p{cntrl}", "\u{7}") && accepts("\\p{Zs}", " "))
        #expect(try accepts("\\p{Cn}", "\u{0378}") && accepts("\\p{Co}", "\u{E000}") && accepts("\\p{C}", "\u{0378}"))
    }

    @Test("Script and Script_Extensions with their value aliases")
    func scripts() throws {
        for spelling in ["Script=Greek", "sc=Greek", "sc=Grek", "Script=Grek"] {
            #expect(try accepts("\\p{\(spelling)}", "α") && !accepts("\\p{\(spelling)}", "a"), "\(spelling)")
        }
        #expect(try accepts("\\p{sc=Qaac}", "\u{2C80}") && accepts("\\p{sc=Coptic}", "\u{2C80}"))
        #expect(try accepts("\\p{sc=Zinh}", "\u{0301}") && accepts("\\p{Script=Inherited}", "\u{0301}"))
        #expect(try accepts("\\p{sc=Zyyy}", "1") && accepts("\\p{sc=Unknown}", "\u{0378}"))
        // U+0965 DEVANAGARI DOUBLE DANDA is Common, with Devanagari, Bengali, … as extensions.
        #expect(try !accepts("\\p{sc=Deva}", "\u{0965}") && accepts("\\p{sc=Common}", "\u{0965}"))
        for spelling in ["scx=Deva", "Script_Extensions=Devanagari", "scx=Beng", "Script_Extensions=Bengali"] {
            #expect(try accepts("\\p{\(spelling)}", "\u{0965}"), "\(spelling)")
        }
        #expect(try !accepts("\\p{scx=Common}", "\u{0965}") && accepts("\\p{scx=Deva}", "\u{0915}"))
    }

    @Test("ECMA-262's binary properties and their short aliases")
    func binaryProperties() throws {
        let cases: [(String, String, String)] = [
            ("ASCII", "~", "é"), ("AHex", "F", "G"), ("ASCII_Hex_Digit", "0", "\u{FF10}"), ("Alpha", "é", "1"),
            ("Any", "\u{10FFFF}", ""), ("Bidi_C", "\u{200E}", "a"), ("Bidi_M", "(", "a"), ("CI", "'", "a"),
            ("Cased", "a", "1"), ("CWCF", "A", "a"), ("CWCM", "a", "1"), ("CWL", "A", "a"), ("CWKCF", "A", "a"),
            ("Changes_When_NFKC_Casefolded", "\u{00AD}", "a"), ("CWT", "a", "A"), ("CWU", "a", "A"),
            ("Dash", "-", "a"), ("DI", "\u{00AD}", "a"), ("Dep", "\u{0149}", "a"), ("Dia", "^", "a"),
            ("Emoji", "😀", "a"), ("EComp", "#", "a"), ("EMod", "\u{1F3FB}", "a"), ("EBase", "👍", "a"),
            ("EPres", "😀", "#"), ("ExtPict", "©", "a"), ("Ext", "\u{00B7}", "a"), ("Gr_Base", "a", "\u{0301}"),
            ("Gr_Ext", "\u{0301}", "a"), ("Hex", "\u{FF10}", "g"), ("IDSB", "\u{2FF0}", "a"),
            ("IDST", "\u{2FF2}", "a"), ("IDC", "_", "-"), ("IDS", "a", "_"), ("Ideo", "中", "a"),
            ("Join_C", "\u{200D}", "a"), ("LOE", "\u{0E40}", "a"), ("Lower", "a", "A"), ("Math", "+", "a"),
            ("NChar", "\u{FFFF}", "a"), ("Pat_Syn", "!", "a"), ("Pat_WS", " ", "a"), ("QMark", "\"", "a"),
            ("Radical", "\u{2E80}", "a"), ("RI", "\u{1F1E6}", "a"), ("STerm", "!", ","), ("SD", "i", "a"),
            ("Term", ",", "a"), ("UIdeo", "中", "a"), ("Upper", "A", "a"), ("VS", "\u{FE0F}", "a"),
            ("space", " ", "a"), ("White_Space", "\u{3000}", "a"), ("XIDC", "1", "-"), ("XIDS", "a", "1"),
        ]
        for (name, member, other) in cases {
            #expect(try accepts("\\p{\(name)}", member), "\\p{\(name)} on \(member.debugDescription)")
            if !other.isEmpty {
                #expect(try !accepts("\\p{\(name)}", other), "\\p{\(name)} on \(other.debugDescription)")
                #expect(try accepts("\\P{\(name)}", other), "\\P{\(name)} on \(other.debugDescription)")
            }
            #expect(try !accepts("\\P{\(name)}", member), "\\P{\(name)} on \(member.debugDescription)")
        }
    }

    @Test("\\P negates; escapes work inside classes, negated classes and the v flag's set operations")
    func negationAndClasses() throws {
        #expect(try accepts("\\P{L}", "1") && !accepts("\\P{L}", "a"))
        #expect(try accepts("[\\p{L}\\d]+", "ab12é") && !accepts("[\\p{L}\\d]+", "a-b"))
        #expect(try accepts("[^\\p{L}]", "-") && !accepts("[^\\p{L}]", "a"))
        #expect(try accepts("[\\P{L}a]+", "a1") && !accepts("[\\P{L}a]", "b"))
        for v in [false, true] {
            #expect(try accepts("[\\p{Lu}\\p{Nd}]+", "A1", v: v) && !accepts("[\\p{Lu}\\p{Nd}]", "a", v: v))
        }
        #expect(try accepts("[\\p{L}--[a-z]]", "A", v: true) && !accepts("[\\p{L}--[a-z]]", "a", v: true))
        #expect(try accepts("[\\p{sc=Greek}&&\\p{Lu}]", "Ω", v: true) && !accepts("[\\p{sc=Greek}&&\\p{Lu}]", "ω", v: true))
        #expect(try accepts("[\\p{ASCII}--\\p{L}]", "1", v: true) && !accepts("[\\p{ASCII}--\\p{L}]", "a", v: true))
        #expect(try accepts("[^\\P{Lu}]", "A", v: true) && !accepts("[^\\P{Lu}]", "a", v: true))
        #expect(try accepts("[\\p{L}&&[^\\p{ASCII}]]", "é", v: true) && !accepts("[\\p{L}&&[^\\p{ASCII}]]", "e", v: true))
    }

    /// ECMAScript's Canonicalize with `i`: `u` complements the property and then compares folds
    /// (so `/\P{Lu}/ui` matches "A": "a" is not Lu and folds alike); `v` folds the property first
    /// (MaybeSimpleCaseFolding) and complements among the scalars that fold to themselves.
    @Test("ignoreCase follows ECMAScript's Canonicalize for u and for v")
    func ignoreCase() throws {
        #expect(try accepts("\\p{Lu}", "a", ignoreCase: true) && accepts("\\p{Ll}", "A", ignoreCase: true))
        #expect(try accepts("\\p{Lu}", "a", ignoreCase: true, v: true) && accepts("\\p{Ll}", "A", ignoreCase: true, v: true))
        #expect(try accepts("\\P{Lu}", "A", ignoreCase: true))
        #expect(try accepts("\\P{Lu}", "a", ignoreCase: true))
        #expect(try !accepts("\\P{Lu}", "A", ignoreCase: true, v: true))
        #expect(try !accepts("\\P{Lu}", "a", ignoreCase: true, v: true))
        #expect(try accepts("\\P{Lu}", "1", ignoreCase: true, v: true))
        // U+212A KELVIN SIGN folds to "k": ASCII with i, and \P{ASCII} is told apart per flag.
        #expect(try accepts("\\p{ASCII}", "\u{212A}", ignoreCase: true) && !accepts("\\p{ASCII}", "\u{212A}"))
        #expect(try accepts("\\P{ASCII}", "k", ignoreCase: true) && !accepts("\\P{ASCII}", "k", ignoreCase: true, v: true))
        #expect(try accepts("[^\\P{Ll}]", "A", ignoreCase: true, v: true))
        #expect(try accepts("\\p{sc=Greek}", "Ω", ignoreCase: true) && !accepts("\\p{sc=Greek}", "a", ignoreCase: true))
    }

    /// V8's results (Node 20.20.2, ICU 78.2: Unicode 17.0) for every form and flag on inputs chosen
    /// for case folding, from `scripts/generate-regex-property-vectors.js` (which states where V8
    /// departs from the spec text and what it runs instead).
    @Test("property escapes give V8's exec results in every form and flag")
    func v8Vectors() throws {
        let vectors = try ECMARegexTests.vectors("ecmaregex-property-vectors.json")
        #expect(vectors.count > 6_000)
        var compiled: [String: Result<ECMARegex, ECMARegexError>] = [:]
        var failures: [String] = []
        for vector in vectors {
            let key = vector.flags + "/" + vector.pattern
            let regex =
                compiled[key]
                ?? Result { () throws(ECMARegexError) in
                    try ECMARegex(
                        vector.pattern, ignoreCase: vector.flags.contains("i"), unicodeSets: vector.flags.contains("v"))
                }
            compiled[key] = regex
            let label = "/\(vector.pattern)/\(vector.flags) on \(vector.input.debugDescription)"
            switch regex {
            case .failure(let error) where !vector.isError: failures.append("\(label): refused (\(error))")
            case .success where vector.isError: failures.append("\(label): compiled, V8 throws")
            case .success(let regex) where regex.exec(vector.input) != vector.expected:
                failures.append(
                    "\(label): got \(String(describing: regex.exec(vector.input))), V8 \(String(describing: vector.expected))")
            default: break
            }
        }
        #expect(failures.isEmpty, "\(failures.count) disagreements:\n\(failures.prefix(40).joined(separator: "\n"))")
    }

    @Test(
        "unknown, loosely spelled and malformed names are refused with the escape named",
        arguments: [
            ("a\\p{letter}", "did you mean 'Letter'", 1), ("\\p{Script=latin}", "did you mean 'Latin'", 0),
            ("\\p{Latin}", "did you mean 'Script=Latin'", 0), ("\\p{sc=Latn }", "invalid character ' '", 10),
            ("\\p{Lowercase Letter}", "loose matching", 12), ("\\p{ASCII=Y}", "unknown Unicode property name 'ASCII'", 0),
            ("\\p{gc}", "unknown Unicode property 'gc'", 0), ("\\p{Block=Basic_Latin}", "unknown Unicode property name", 0),
            ("\\p{script=Latin}", "did you mean 'Script'", 0), ("\\p{gc=Latin}", "unknown value 'Latin'", 0),
            ("\\pL", "needs {…}", 0), ("\\p{L", "unterminated property escape", 0), ("\\p{}", "invalid property escape", 0),
            ("\\p{sc=}", "invalid property escape", 0), ("\\p{=L}", "invalid property escape", 0),
            ("\\p{gc=L=Lu}", "invalid character '='", 7), ("\\p{Is_Latin}", "unknown Unicode property", 0),
            ("[a\\P{Foo}]", "unknown Unicode property 'Foo'", 2), ("\\p{RGI_Emoji}", "property of strings", 0),
            ("\\p{L1}", "unknown Unicode property", 0), ("\\p{g1=L}", "invalid property escape", 0),
            ("\\p{sc=Hrkt}", "unknown value 'Hrkt'", 0), ("\\p{scx=Katakana_Or_Hiragana}", "unknown value", 0),
        ])
    func refusals(pattern: String, message: String, offset: Int) {
        let refused = error(pattern)
        #expect(refused?.message.contains(message) == true, "\(pattern): \(String(describing: refused))")
        #expect(refused?.offset == offset, "\(pattern): \(String(describing: refused))")
    }

    @Test("the v flag's properties of strings are refused by name, never read as code points")
    func propertiesOfStrings() {
        for name in ["RGI_Emoji", "Basic_Emoji", "RGI_Emoji_ZWJ_Sequence", "Emoji_Keycap_Sequence"] {
            let refused = error("[\\p{\(name)}]", v: true)
            #expect(refused?.message.contains("property of strings \\p{\(name)} is not supported") == true, "\(name)")
        }
    }

    @Test("a property class is one instruction: the linear step bound holds on long input")
    func stepBound() throws {
        let regex = try ECMARegex("^(\\p{L}|\\p{scx=Deva}|\\P{Nd})+$", ignoreCase: true)
        let input = String(repeating: "aé中\u{0965}", count: 2_000)
        let run = regex.execCountingSteps(input)
        #expect(run.result != nil)
        #expect(run.steps <= regex.stepBound(scalarCount: input.unicodeScalars.count))
    }

    /// A URL's components reach the regexp canonicalized: non-ASCII is percent-encoded (and a
    /// host is punycode), so a property class sees ASCII there, as it does in a browser.
    @Test("URLPattern regexp groups take property escapes (the v flag)")
    func urlPattern() throws {
        let pattern = try URLPattern(.dictionary(URLPatternInit(pathname: "/wiki/(\\p{L}+)")))
        let matched = try #require(try pattern.exec(.dictionary(URLPatternInit(pathname: "/wiki/Zurich"))))
        #expect(matched[component: "pathname"]?[group: "0"] == "Zurich")
        #expect(try pattern.exec(.dictionary(URLPatternInit(pathname: "/wiki/Z1"))) == nil)
        #expect(try pattern.exec(.dictionary(URLPatternInit(pathname: "/wiki/Zürich"))) == nil)  // Z%C3%BCrich
        let sets = try URLPattern(.dictionary(URLPatternInit(pathname: "/([\\p{L}--[a-z]]+)")))
        #expect(try sets.exec(.dictionary(URLPatternInit(pathname: "/AB"))) != nil)
        #expect(try sets.exec(.dictionary(URLPatternInit(pathname: "/ab"))) == nil)
        do {
            _ = try URLPattern(.dictionary(URLPatternInit(pathname: "/(\\p{letter}+)")))
            Issue.record("a loosely spelled property was accepted")
        } catch {
            #expect(error.kind == .regexp && error.component == "pathname")
            #expect(error.message.contains("did you mean 'Letter'"), "\(error)")
        }
    }

    private struct Unexpected: Error {
        let lookup: UnicodeProperty.Lookup
        init(_ lookup: UnicodeProperty.Lookup) { self.lookup = lookup }
    }
}
