import Foundation
import JSONSupport
import NavigationPolicy
import TestSelection
import Testing

@testable import PolicyService

/// The decision log redacts URLs in place, on their UTF-8 bytes, while it escapes them into the
/// line (issue 28: what logging costs). These tests hold it to the string-based redaction it
/// replaced (``LegacyQueryRedaction``, kept as the oracle): over generated URLs, the same bytes
/// for the URL alone and for the whole line, the same `redacted` mark.
@Suite("decision log cost: in-place redaction", .tags(.sanitizerRelevant))
struct DecisionLogCostRedactionTests {
    /// Names as configured, with the spellings the rule must see through.
    static let rules: [[String]] = [
        ["code"], ["code", "Email", "state"], ["*"], ["CODE[]", "token"], ["é"], ["a b"],
    ]

    /// Pieces URLs are made of, chosen to hit separators, escapes, bare entries, nested URLs,
    /// the marker itself and characters the JSON escaping changes.
    static let pieces: [String] = [
        "https://shop.example/p", "?", "#", "&", ";", "=", "code", "CODE", "%63ode", "co%64e", "%2563ode", "code[]",
        "state", "email", "Email+", "+code", "code%3DSECRET", "SECRET", "x", "REDACTED", "%", "%2", "%3D", "%26",
        "https%3A%2F%2Fa%2Fcb%3Fcode%3Dv", "é", "日本", "\"", "\\", "\t", "\n", "\u{7F}", "\u{01}", "co\tde", " ", "[0]",
        "token", "a b", "a+b", "%C3%A9",
    ]

    static func url(_ generator: inout SystemRandomNumberGenerator) -> String {
        let count = Int.random(in: 0...14, using: &generator)
        // Most URLs match the test policy's handlers (a location and a shadow location to
        // redact), some take the default decision.
        var url = Bool.random(using: &generator) || Bool.random(using: &generator) ? Self.pieces[0] : "http://other.example"
        for _ in 0..<count { url += Self.pieces.randomElement(using: &generator) ?? "" }
        return url
    }

    /// What the old writer put in the line for `url`: the redacted String, escaped.
    static func escaped(_ text: String) -> [UInt8] {
        var writer = JSONWriter()
        writer.writeStringContents(text)
        return writer.bytes
    }

    @Test("the in-place writer writes the bytes the string-based redaction did, over 10,000 generated URLs per rule")
    func sameBytesAsTheStringRedaction() {
        for names in Self.rules {
            let rule = QueryRedaction(names: names)
            let legacy = LegacyQueryRedaction(names: names)
            // Random each run (a failure names its URL): more inputs over time than a fixed seed.
            var generator = SystemRandomNumberGenerator()
            for _ in 0..<10_000 {
                let url = Self.url(&generator)
                let expected = legacy.redact(url)
                #expect(rule.redact(url) == expected, "\(names) \(url.debugDescription)")
                var writer = JSONWriter()
                let changed = rule.write(url, into: &writer)
                #expect(changed == (expected != nil), "\(names) \(url.debugDescription)")
                #expect(writer.bytes == Self.escaped(expected ?? url), "\(names) \(url.debugDescription)")
            }
        }
    }

    @Test("the redacting writer keeps an unlisted URL byte for byte, escapes included")
    func unchangedURL() {
        let rule = QueryRedaction(names: ["code"])
        for url in ["https://a.example/", "https://a.example/p?x=1&y=\"q\"\\#f", "https://a.example/é?日=1"] {
            var writer = JSONWriter()
            #expect(!rule.write(url, into: &writer))
            #expect(writer.bytes == Self.escaped(url))
        }
    }

    /// The old line: every URL field redacted as a String first, then written whole, with the
    /// mark after `decisionId` when any changed.
    static func legacyLine(
        _ decision: Decision, for navigation: NavigationRequest, names: [String], snapshot: PolicySnapshot
    ) -> [UInt8] {
        let legacy = LegacyQueryRedaction(names: names)
        var changed = false
        func apply(_ text: String) -> String {
            guard let replaced = legacy.redact(text) else { return text }
            changed = true
            return replaced
        }
        // Attack 9's rule on top: a location holding the `{url}` expansion of a URL written
        // before it with values redacted gets the expansion of the redacted URL instead.
        let earlier = [navigation.url, navigation.sourceURL, decision.url].compactMap { $0 }
        func applyLocation(_ text: String) -> String {
            var text = text
            for source in earlier {
                guard let replaced = legacy.redact(source) else { continue }
                let expansion = LocationTemplate.expansion(of: source)
                if text.contains(expansion) {
                    text = text.replacing(expansion, with: LocationTemplate.expansion(of: replaced))
                    changed = true
                }
            }
            return apply(text)
        }
        var navigation = navigation
        var decision = decision
        navigation.url = apply(navigation.url)
        navigation.sourceURL = navigation.sourceURL.map(apply)
        decision.url = apply(decision.url)
        decision.location = decision.location.map(applyLocation)
        decision.shadow = decision.shadow?.map { result in
            var result = result
            result.location = result.location.map(applyLocation)
            return result
        }
        var line = DecisionRecorder.logLine(
            decision, for: navigation, id: DecisionID(prefix: 7, sequence: 9), revision: snapshot.revision,
            redaction: QueryRedaction(names: []), at: Date(timeIntervalSince1970: 1_800_000_000))
        if changed, let mark = line.firstRange(of: Array(#""decisionId":"00000007-000000000009""#.utf8)) {
            line.insert(contentsOf: Array(#","redacted":true"#.utf8), at: mark.upperBound)
        }
        return line
    }

    @Test("whole lines: every URL field (request, source, decision, location, shadow locations) as the old writer wrote it")
    func sameLines() throws {
        for names in Self.rules {
            let listed = String(decoding: try JSONSerialization.data(withJSONObject: names), as: UTF8.self)
            let config = """
                {"defaultDecision": "allow", "decisionLog": {"redactQueryParameters": \(listed)},
                 "handlers": [
                  {"name": "pay", "type": "payment-redirect", "match": {"hosts": ["shop.example"]},
                   "location": "https://pay.example/checkout?next={url}&code=1"},
                  {"name": "beta", "type": "cancel", "mode": "shadow", "match": {"hosts": ["shop.example"]},
                   "location": "https://beta.example/?from={url}"}
                ]}
                """
            let snapshot = try PolicySnapshot.build(from: Array(config.utf8)).get()
            var generator = SystemRandomNumberGenerator()
            var checked = 0
            for _ in 0..<2_000 {
                let sent = Self.url(&generator)
                let source = Bool.random(using: &generator) ? Self.url(&generator) : nil
                let navigation = NavigationRequest(url: sent, sourceURL: source)
                guard let decision = try? snapshot.policy.decide(navigation) else { continue }
                checked += 1
                let line = DecisionRecorder.logLine(
                    decision, for: navigation, id: DecisionID(prefix: 7, sequence: 9), revision: snapshot.revision,
                    redaction: snapshot.logRedaction, at: Date(timeIntervalSince1970: 1_800_000_000))
                let expected = Self.legacyLine(decision, for: navigation, names: names, snapshot: snapshot)
                #expect(
                    line == expected,
                    "\(names) \(sent.debugDescription)\n\(String(decoding: line, as: UTF8.self))\n\(String(decoding: expected, as: UTF8.self))"
                )
            }
            #expect(checked > 500, "most generated URLs are decidable")
        }
    }

    @Test("a shadow result is written as its jsonObject serializes")
    func shadowBytes() throws {
        let decision = Decision(
            verdict: .cancel, handler: "h", action: "block", location: "https://a.example/?x=\"1\"", url: "https://a.example/",
            shadow: [
                ShadowResult(handler: "s1", verdict: .allow, action: nil, location: nil),
                ShadowResult(handler: "s\"2", verdict: .cancel, action: "logout", location: "https://b.example/é"),
            ])
        var members = JSONWriter()
        members.writeRaw("{")
        decision.writeMembers(to: &members, includingTrace: false)
        members.writeRaw("}")
        var object = JSONWriter()
        object.write(.object(decision.jsonObject))
        #expect(members.string == object.string)
    }
}
