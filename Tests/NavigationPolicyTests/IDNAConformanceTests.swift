import Foundation
import Testing

@testable import NavigationPolicy

/// Runs the web-platform-tests IDNA data (`IdnaTestV2.json`, `toascii.json`, copies in
/// Resources/) through the URL parser the way WPT's url/IdnaTestV2.window.js does (see
/// README-idna.txt): percent-encode the host-ending code points `: / ? # \`, parse
/// `"https://" + input + "/x"`; the host must equal `output` (and href be `https://output/x`),
/// or parsing must fail where `output` is null. Like WPT, the empty input is skipped (it cannot
/// be written as a URL); so are inputs with a lone surrogate, which a Swift string cannot hold.
struct IDNAConformanceTests {
    /// Stands in for an unpaired UTF-16 surrogate escape: Swift strings cannot hold one, so such
    /// inputs are counted as skipped. U+10FFFF occurs in none of the data files.
    static let loneSurrogateMarker = "\\udbff\\udfff"

    struct Outcome {
        var passed = 0
        var total = 0
        var skipped = 0
        var skippedEmpty = 0
        var failures: [String] = []
    }

    /// Replaces each `\uD800`–`\uDFFF` escape that is not half of a well-formed pair by the marker,
    /// so the file parses; everything else is left byte for byte.
    static func replacingLoneSurrogates(in text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        var rest = Substring(text)
        func surrogate(_ s: Substring) -> UInt32? {
            // `prefix`, not `count`: `s` is the rest of the file.
            guard s.hasPrefix("\\u"), s.prefix(6).count == 6, let v = UInt32(s.dropFirst(2).prefix(4), radix: 16),
                (0xD800...0xDFFF).contains(v)
            else { return nil }
            return v
        }
        while let range = rest.range(of: "\\u") {
            out += rest[..<range.lowerBound]
            let escape = rest[range.lowerBound...]
            if let first = surrogate(escape) {
                let next = escape.dropFirst(6)
                if first < 0xDC00, let second = surrogate(next), second >= 0xDC00 {
                    out += escape.prefix(12)
                    rest = next.dropFirst(6)
                } else {
                    out += loneSurrogateMarker
                    rest = next
                }
            } else {
                out += "\\u"
                rest = escape.dropFirst(2)
            }
        }
        out += rest
        return out
    }

    static func run(_ name: String) throws -> Outcome {
        let raw = String(decoding: try TestResources.data(name), as: UTF8.self)
        let cleaned = Data(replacingLoneSurrogates(in: raw).utf8)
        guard let entries = try JSONSerialization.jsonObject(with: cleaned) as? [Any] else {
            throw TestResources.MissingResource(name: name + " (not a JSON array)")
        }
        var outcome = Outcome()
        for entry in entries {
            guard let test = entry as? [String: Any], let input = test["input"] as? String else { continue }
            if input.unicodeScalars.contains(where: { $0.value == 0x10FFFF }) {
                outcome.skipped += 1
                continue
            }
            if input.isEmpty {
                outcome.skippedEmpty += 1
                continue
            }
            outcome.total += 1
            let expected = test["output"] as? String
            var encoded = ""
            for character in input.unicodeScalars {
                switch character {
                case ":": encoded += "%3A"
                case "/": encoded += "%2F"
                case "?": encoded += "%3F"
                case "#": encoded += "%23"
                case "\\": encoded += "%5C"
                default: encoded.unicodeScalars.append(character)
                }
            }
            let label = input.unicodeScalars.map { $0.isASCII ? String($0) : "\\u{\(String($0.value, radix: 16))}" }
                .joined()
            do {
                let url = try URLRecord.parse("https://" + encoded + "/x")
                if let expected, url.hostname == expected, url.href == "https://\(expected)/x" {
                    outcome.passed += 1
                } else {
                    outcome.failures.append("\(label): expected \(expected ?? "failure"), got \(url.hostname)")
                }
            } catch {
                if expected == nil {
                    outcome.passed += 1
                } else {
                    outcome.failures.append("\(label): expected \(expected ?? ""), got \(error)")
                }
            }
        }
        return outcome
    }

    static func report(_ title: String, _ outcome: Outcome) {
        print(
            "WPT \(title): \(outcome.passed)/\(outcome.total) passed; skipped \(outcome.skipped) with a lone surrogate, "
                + "\(outcome.skippedEmpty) empty")
        for failure in outcome.failures.prefix(40) { print("  FAIL \(failure)") }
        if outcome.failures.count > 40 { print("  ... and \(outcome.failures.count - 40) more") }
    }

    @Test func idnaTestV2() throws {
        let outcome = try Self.run("IdnaTestV2.json")
        Self.report("IdnaTestV2", outcome)
        #expect(outcome.total + outcome.skipped + outcome.skippedEmpty == 2671)
        #expect(outcome.skipped == 2)
        #expect(outcome.skippedEmpty == 1)
        #expect(outcome.passed == outcome.total)
    }

    @Test func toASCII() throws {
        let outcome = try Self.run("toascii.json")
        Self.report("toascii", outcome)
        #expect(outcome.total == 87)
        #expect(outcome.passed == outcome.total)
    }

    @Test func surrogateEscapesAreMarkedOnlyWhenLone() {
        #expect(Self.replacingLoneSurrogates(in: #""a\ud900z""#) == #""a\udbff\udfffz""#)
        #expect(Self.replacingLoneSurrogates(in: #""\ud835\udd30\u00e9""#) == #""\ud835\udd30\u00e9""#)
        #expect(Self.replacingLoneSurrogates(in: #""\udd30x""#) == #""\udbff\udfffx""#)
    }
}
