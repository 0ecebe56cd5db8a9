import Testing

@testable import NavigationPolicy
@testable import URLStandard

/// Punycode, NFC and UTS #46 regression cases for the pure-Swift IDNA implementation.
struct PunycodeTests {
    /// RFC 3492 §7.1 sample strings (code points, encoding).
    static let samples: [(name: String, scalars: [UInt32], encoded: String)] = [
        (
            "A Arabic (Egyptian)",
            [
                0x644, 0x64A, 0x647, 0x645, 0x627, 0x628, 0x62A, 0x643, 0x644, 0x645, 0x648, 0x634, 0x639, 0x631,
                0x628, 0x64A, 0x61F,
            ],
            "egbpdaj6bu4bxfgehfvwxn"
        ),
        (
            "B Chinese (simplified)", [0x4ED6, 0x4EEC, 0x4E3A, 0x4EC0, 0x4E48, 0x4E0D, 0x8BF4, 0x4E2D, 0x6587],
            "ihqwcrb4cv8a8dqg056pqjye"
        ),
        (
            "C Chinese (traditional)", [0x4ED6, 0x5011, 0x7232, 0x4EC0, 0x9EBD, 0x4E0D, 0x8AAA, 0x4E2D, 0x6587],
            "ihqwctvzc91f659drss3x8bo0yb"
        ),
        ("L 3<nen>B<gumi>...", [0x33, 0x5E74, 0x42, 0x7D44, 0x91D1, 0x516B, 0x5148, 0x751F], "3B-ww4c5e180e575a65lsy2b"),
        ("O <hitotsu><yane>...2", [0x3072, 0x3068, 0x3064, 0x5C4B, 0x6839, 0x306E, 0x4E0B, 0x32], "2-u9tlzr9756bt3uc0v"),
        ("R <sono><supiido><de>", [0x305D, 0x306E, 0x30B9, 0x30D4, 0x30FC, 0x30C9, 0x3067], "d9juau41awczczp"),
        ("S -> $1.00 <-", Array("-> $1.00 <-".unicodeScalars.map(\.value)), "-> $1.00 <--"),
    ]

    @Test func rfc3492SamplesEncode() {
        for sample in Self.samples {
            var out: [UInt8] = []
            #expect(Punycode.encode(sample.scalars[...], into: &out), "\(sample.name)")
            #expect(String(decoding: out, as: UTF8.self) == sample.encoded, "\(sample.name)")
        }
    }

    @Test func rfc3492SamplesDecode() {
        for sample in Self.samples {
            #expect(Punycode.decode(Array(sample.encoded.utf8)[...]) == sample.scalars, "\(sample.name)")
        }
    }

    @Test func decodeRejectsBadInput() {
        // The delta 35 + 35·w + … of "9999999999a" does not fit in 32 bits.
        #expect(Punycode.decode(Array("9999999999a".utf8)[...]) == nil)
        // A digit sequence that never terminates.
        #expect(Punycode.decode(Array("99999999".utf8)[...]) == nil)
        // Not a digit.
        #expect(Punycode.decode(Array("ab=".utf8)[...]) == nil)
        // Non-basic code point before the delimiter.
        #expect(Punycode.decode([0xC3, 0xA9, 0x2D, 0x61][...]) == nil)
        // Large deltas: overflow, or a code point past U+10FFFF.
        #expect(Punycode.decode(Array("z9999999a".utf8)[...]) == nil)
    }
}

struct NormalizationTests {
    static func nfc(_ text: String) -> String {
        let scalars = UnicodeNormalization.nfc(text.unicodeScalars.map(\.value))
        var out = String.UnicodeScalarView()
        for value in scalars { if let scalar = Unicode.Scalar(value) { out.append(scalar) } }
        return String(out)
    }

    @Test(
        arguments: [
            ("e\u{301}", "\u{E9}"),  // composition
            ("a\u{302}\u{323}", "\u{1EAD}"),  // reordering (230 after 220), then composition
            ("a\u{323}\u{302}", "\u{1EAD}"),
            ("\u{1100}\u{1161}\u{11A8}", "\u{AC01}"),  // Hangul L V T
            ("\u{AC00}\u{11A8}", "\u{AC01}"),  // Hangul LV + T
            ("\u{AC01}", "\u{AC01}"),  // LVT stays
            ("\u{212B}", "\u{C5}"),  // singleton (ANGSTROM SIGN)
            ("\u{958}", "\u{915}\u{93C}"),  // composition exclusion (DEVANAGARI QA)
            ("\u{344}", "\u{308}\u{301}"),  // non-starter decomposition
            ("a\u{301}\u{301}", "\u{E1}\u{301}"),  // second acute is blocked
            ("<\u{338}", "\u{226E}"),
        ])
    func nfc(input: String, expected: String) {
        #expect(
            Self.nfc(input).unicodeScalars.map(\.value) == expected.unicodeScalars.map(\.value),
            "\(input.unicodeScalars.map { String($0.value, radix: 16) })")
    }
}

struct IDNARegressionTests {
    static func host(_ input: String) throws -> String {
        try URLRecord.parse("https://" + input + "/").hostname
    }

    /// Security finding 14: ICU 72 (Unicode 15.0) decided these differently from browsers.
    @Test func capitalSharpSMapsToSharpS() throws {
        #expect(try Self.host("\u{1E9E}.com") == "xn--zca.com")
        #expect(try Self.host("FA\u{1E9E}.de") == "xn--fa-hia.de")
        #expect(try Self.host("\u{DF}.com") == "xn--zca.com")
        #expect(try IDNA.toASCII("\u{1E9E}.com") == "xn--zca.com")
    }

    static let newlyIgnored: [UInt32] =
        [0x3164, 0xFFA0, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180E, 0x2061, 0x2062, 0x2063]
        + Array(0x206A...0x206F) + Array(0x1D173...0x1D17A)

    @Test(arguments: newlyIgnored)
    func ignoredCodePointIsRemoved(_ value: UInt32) throws {
        let scalar = try #require(Unicode.Scalar(value))
        #expect(try Self.host("pa\(Character(scalar))y.example.com") == "pay.example.com")
    }

    @Test func invalidDomainsThrow() {
        for input in ["\u{200D}.example", "xn--a.\u{DF}", "\u{FFFD}.com", "xn--te\u{161}la", "\u{64A}a", "\u{378}.net"] {
            #expect(throws: URLParseError(.invalidDomain), "\(input)") { try IDNA.toASCII(input) }
        }
        // Ill-formed UTF-8 (a lone continuation byte) fails like its U+FFFD replacement.
        #expect(throws: URLParseError(.invalidDomain)) { try IDNA.toASCII([0x61, 0x80, 0x2E, 0x63, 0x6F]) }
    }

    @Test func asciiXNLabelsAreValidatedInNonASCIIDomains() throws {
        #expect(throws: URLParseError(.invalidDomain)) { try Self.host("xn--a.\u{DF}") }
        #expect(try Self.host("xn--zca.\u{DF}") == "xn--zca.xn--zca")
        // An all-ASCII domain is only lowercased (URL Standard, WPT toascii.json "xn--a").
        #expect(try Self.host("XN--A.com") == "xn--a.com")
    }

    /// A rule on ß.com (or its ACE form) must catch ẞ.com, as browsers go to xn--zca.com.
    @Test(arguments: ["\u{DF}.com", "xn--zca.com"])
    func policyOnSharpSCancelsCapitalSharpS(ruleHost: String) throws {
        let policy = try compile(
            #"{"defaultDecision":"allow","handlers":[{"name":"block","type":"cancel","match":{"hosts":[""#
                + ruleHost + #""]}}]}"#)
        for url in ["https://\u{1E9E}.com/", "https://\u{DF}.com/x", "https://XN--ZCA.com/"] {
            let decision = try decide(policy, url)
            #expect(decision.verdict == .cancel, "\(url) with rule \(ruleHost)")
        }
        #expect(try decide(policy, "https://ss.com/").verdict == .allow)
    }
}
