import JSONSupport
import Testing

@testable import NavigationPolicy

/// Issue 38, item 12: config errors cost and echo a bounded amount whatever the input's size.
@Suite("config error bounds")
struct ConfigErrorBoundsTests {
    @Test("no suggestion is computed for a key past the bound; near-misses still get one")
    func suggestionBound() {
        #expect(Spelling.closest(to: "defaultDecison", in: ["defaultDecision", "handlers"]) == "defaultDecision")
        #expect(Spelling.closest(to: String(repeating: "a", count: 65), in: ["handlers"]) == nil)
        // Within 2 edits only when the lengths differ by 2 at most: never compared otherwise.
        #expect(Spelling.closest(to: "hand", in: ["handlers"]) == nil)
    }

    @Test("an unknown key is echoed cut with an ellipsis, in the message and the pointer")
    func echoedKeys() throws {
        let key = String(repeating: "k", count: 100_000)
        let json = #"{"handlers": [], "\#(key)": 1}"#
        var thrown: ConfigError?
        do {
            _ = try PolicyCompiler().compile(Array(json.utf8))
        } catch {
            thrown = error
        }
        let error = try #require(thrown)
        #expect(error.description.utf8.count < 400, "\(error.description.prefix(200))")
        #expect(error.description.contains("kkk…"))
        #expect(EchoedText.bounded("é" + String(repeating: "a", count: 70)).utf8.count == 64 + "…".utf8.count)
        #expect(EchoedText.bounded("short") == "short")
    }

    @Test("past 1,000 issues the rest are counted in one last issue; a long message keeps its start and end")
    func issueCount() throws {
        let keys = (0..<2500).map { #""unknown\#($0)": 1"# }.joined(separator: ",")
        var thrown: ConfigError?
        do {
            _ = try PolicyCompiler().compile(Array(#"{"handlers": [], \#(keys)}"#.utf8))
        } catch {
            thrown = error
        }
        let error = try #require(thrown)
        #expect(error.issues.count == ConfigDiagnostics.maximumIssues + 1)
        #expect(error.issues.last?.message == "1500 more errors not shown (the first 1000 are)")
        let message = "start " + String(repeating: "m", count: 5000) + " end"
        let bounded = ConfigDiagnostics.bounded(message)
        #expect(bounded.utf8.count <= ConfigDiagnostics.maximumMessageBytes + 3)
        #expect(bounded.hasPrefix("start ") && bounded.hasSuffix(" end") && bounded.contains("…"))
    }

    /// Outside attack 13, N2: a posted config of N unknown members cost N² key comparisons and N
    /// spelling suggestions (0.4 MB took 2.7 s, 1.3 MB 25 s of `/v1/policy/analyze`). Now
    /// repeated keys are found through a set past a handful of members, and a message is made only
    /// for an issue that is kept: 200,000 members (2.4 MB) take a fraction of a second here (the
    /// quadratic form took minutes at this size).
    @Test(
        "200,000 unknown members, every 1,000th repeated: 1,000 issues kept, the rest counted")
    func manyUnknownMembers() throws {
        let members = (0..<200_000).map { #""k\#($0 % 1000 == 999 ? 0 : $0)": 1"# }.joined(separator: ",")
        var thrown: ConfigError?
        do {
            _ = try PolicyCompiler().compile(Array(#"{"handlers": [], \#(members)}"#.utf8))
        } catch {
            thrown = error
        }
        let error = try #require(thrown)
        #expect(error.issues.count == ConfigDiagnostics.maximumIssues + 1)
        // 200,000 unknown fields and 200 duplicates of "k0".
        #expect(error.issues.last?.message == "199200 more errors not shown (the first 1000 are)")
        #expect(error.issues.contains { $0.message == #"duplicate key "k0""# })
    }
}
