import NavigationPolicy
import Testing

/// IPv6 literals that reach an IPv4 host must meet the rules written for that IPv4 host:
/// browsers and libcurl connect to `[::ffff:127.0.0.1]` as `127.0.0.1`.
@Suite("IPv4 inside IPv6 literals")
struct EmbeddedIPv4Tests {
    static let policyJSON = """
        {"defaultDecision": "allow", "handlers": [
          {"name": "block-loopback", "type": "cancel", "match": {"hosts": ["127.0.0.1", "10.1.2.3"]}},
          {"name": "block-mapped-pattern", "type": "cancel", "match": {"hosts": ["::ffff:192.0.2.7"]}}
        ]}
        """

    @Test(
        "every spelling of a mapped or NAT64 address meets the IPv4 rule",
        arguments: [
            "http://[::ffff:127.0.0.1]/", "http://[::ffff:7f00:1]/", "http://[0:0:0:0:0:ffff:127.0.0.1]/",
            "http://[0000:0000:0000:0000:0000:FFFF:7F00:0001]/", "http://[::FFFF:7F00:1]:8080/x",
            "http://[0::ffff:127.0.0.1]/", "http://[::0:ffff:7f00:1]/", "https://[::ffff:127.0.0.1]/logout",
            "http://[64:ff9b::127.0.0.1]/", "http://[64:ff9b::7f00:1]/", "http://[0064:FF9B:0:0:0:0:7f00:0001]/",
            "http://[::ffff:a01:203]/", "http://[::ffff:10.1.2.3]/",
            // IPv4-translated (SIIT): a translator sends it to the IPv4 host; folded to fail closed.
            "http://[::ffff:0:7f00:1]/", "http://[::ffff:0:127.0.0.1]/",
        ])
    func mappedSpellingsAreCancelled(url: String) throws {
        let policy = try compile(Self.policyJSON)
        let decision = try decide(policy, url)
        #expect(decision.verdict == .cancel, "\(url) was allowed")
        #expect(decision.handler == "block-loopback")
    }

    @Test("a mapped pattern in config matches the plain IPv4 host and every mapped spelling")
    func mappedPatternNormalizes() throws {
        let policy = try compile(Self.policyJSON)
        for url in ["http://192.0.2.7/", "http://[::ffff:192.0.2.7]/", "http://[::ffff:c000:207]/"] {
            #expect(try decide(policy, url).handler == "block-mapped-pattern", "\(url)")
        }
    }

    @Test(
        "addresses that connect to no IPv4 host stay IPv6",
        arguments: [
            "http://[::7f00:1]/",  // IPv4-compatible: deprecated, refused by Linux and curl
            "http://[::1]/", "http://[64:ff9b:1::7f00:1]/", "http://[1::ffff:7f00:1]/",
        ])
    func otherIPv6StaysIPv6(url: String) throws {
        let decision = try decide(try compile(Self.policyJSON), url)
        #expect(decision.verdict == .allow, "\(url) was cancelled")
    }

    @Test("property: random IPv4 addresses in random mapped spellings meet their IPv4 rule")
    func randomSpellings() throws {
        var generator = ChainIndexEquivalenceTests.SeededGenerator(state: 0x5EED_1234)
        for _ in 0..<300 {
            let address = UInt32(truncatingIfNeeded: generator.next())
            let octets = [24, 16, 8, 0].map { (address >> UInt32($0)) & 0xFF }
            let dotted = octets.map(String.init).joined(separator: ".")
            let policy = try compile(
                #"{"defaultDecision": "allow", "handlers": [{"name": "rule", "type": "cancel", "match": {"hosts": [""#
                    + dotted + #""]}}]}"#)
            let high = String(address >> 16, radix: 16)
            let low = String(address & 0xFFFF, radix: 16)
            let prefixes = ["::ffff:", "0:0:0:0:0:ffff:", "0000::FFFF:", "::0:0:ffff:", "64:ff9b::", "64:FF9B:0:0:0:0:"]
            let prefix = prefixes[Int(generator.next() % UInt64(prefixes.count))]
            let tail: String
            switch generator.next() % 3 {
            case 0: tail = dotted
            case 1: tail = high + ":" + low
            default: tail = padded(high.uppercased()) + ":" + padded(low)
            }
            let url = "http://[" + prefix + tail + "]/"
            #expect(try decide(policy, url).handler == "rule", "\(url) is not \(dotted)")
        }
    }
}

/// A hex piece with its leading zeros written out (`7f00` stays, `1` becomes `0001`).
private func padded(_ hex: String) -> String {
    String(repeating: "0", count: max(0, 4 - hex.count)) + hex
}
