import Foundation
import JSONSupport
import NavigationPolicy
import Synchronization
import TestScratchSupport
import TestSelection
import Testing

@testable import PolicyService

/// The decision log's bounds (issue 26, item 6): the file's byte budget, a batch's allowance,
/// the longest line, and the `decisionLog` config section.
@Suite("decision log bounds", .tags(.sanitizerRelevant))
struct DecisionLogBoundsTests {
    static func line(url: String, location: String? = nil) throws -> [UInt8] {
        let snapshot = try PolicySnapshot.build(from: Array(serviceTestConfig.utf8)).get()
        let navigation = NavigationRequest(url: url, method: "GET", sourceURL: url)
        var decision = try snapshot.policy.decide(navigation, explain: false)
        decision.location = location
        return DecisionRecorder.logLine(
            decision, for: navigation, id: DecisionID(prefix: 0xabcd, sequence: 1), revision: snapshot.revision,
            redaction: snapshot.logRedaction, at: Date())
    }

    @Test("a line over 16 KiB is written with its URLs cut at a character boundary and marked truncated")
    func longLinesAreCut() throws {
        let short = try Self.line(url: "https://a.example/ok")
        #expect(!String(decoding: short, as: UTF8.self).contains("truncated"))
        // Two-byte characters straddle the cut: the prefix must stay valid UTF-8.
        let long = "https://a.example/" + String(repeating: "é", count: 15_000)
        let cut = try Self.line(url: long, location: long)
        #expect(cut.count <= DecisionRecorder.maximumLineBytes)
        let object = try #require(try JSONParser().parse(cut).objectValue)
        #expect(object["truncated"] == .bool(true))
        let url = try #require(object["request"]?.objectValue?["url"]?.stringValue)
        #expect(url.utf8.count <= DecisionRecorder.truncatedURLBytes && long.hasPrefix(url))
        #expect(object["decision"]?.objectValue?["location"]?.stringValue.map { long.hasPrefix($0) } == true)
    }

    @Test("shadow {url} locations are cut too: a long URL under shadow rollouts is still logged")
    func shadowLocationsAreCut() throws {
        // The outside attack of issue 30: a shadow payment-redirect repeats a 15 KB URL in its
        // location; cut without it, the line stayed over 16 KiB and the decision went unlogged.
        let config = """
            {"defaultDecision": "allow", "handlers": [
              {"name": "newpay", "type": "payment-redirect", "mode": "shadow", "match": {"hosts": ["shadow.example"]},
               "location": "https://checkout.example/open?target={url}"},
              {"name": "newpay2", "type": "payment-redirect", "mode": "shadow", "match": {"hosts": ["shadow.example"]},
               "location": "https://checkout2.example/open?target={url}"}
            ]}
            """
        let snapshot = try PolicySnapshot.build(from: Array(config.utf8)).get()
        for length in [10_000, 15_000, 30_000] {
            let url = "https://shadow.example/x?x=" + String(repeating: "a", count: length)
            let navigation = NavigationRequest(url: url, method: "GET", sourceURL: url)
            let decision = try snapshot.policy.decide(navigation, explain: false)
            #expect(decision.shadow?.count == 2)
            let line = DecisionRecorder.logLine(
                decision, for: navigation, id: DecisionID(prefix: 1, sequence: 1), revision: snapshot.revision,
                redaction: snapshot.logRedaction, at: Date())
            #expect(!line.isEmpty && line.count <= DecisionRecorder.maximumLineBytes, "\(length): \(line.count) bytes")
            let object = try #require(try JSONParser().parse(line).objectValue)
            let shadow = try #require(object["decision"]?.objectValue?["shadow"]?.arrayValue)
            for result in shadow {
                let location = try #require(result.objectValue?["location"]?.stringValue)
                #expect(location.utf8.count <= DecisionRecorder.truncatedURLBytes)
            }
        }
    }

    @Test("prefix keeps whole characters")
    func prefixAtCharacterBoundary() {
        #expect(DecisionRecorder.prefix("aé", bytes: 2) == "a")
        #expect(DecisionRecorder.prefix("aé", bytes: 3) == "aé")
        #expect(DecisionRecorder.prefix("abc", bytes: nil) == "abc")
    }

    @Test("a batch's allowance: the first line always, then lines while they fit, then none")
    func allowance() {
        var allowance = LogAllowance(bytes: 100)
        var taken: [Bool] = []
        taken.append(allowance.take(400))  // the first line, whatever its size
        taken.append(allowance.take(10))  // the first used more than the body: nothing more
        #expect(taken == [true, false])
        var roomy = LogAllowance(bytes: 100)
        // Once a line is refused the rest are: the log holds a prefix of the batch.
        let sizes = [40, 40, 40, 10]
        #expect(sizes.map { roomy.take($0) } == [true, true, false, false])
    }

    @Test("the file stops at the budget with whole lines; a reopen measures the new file")
    func budget() throws {
        let path = TestScratch.root + "/budget-\(UUID().uuidString).ndjson"
        try Data(repeating: 0x41, count: 50).write(to: URL(fileURLWithPath: path))  // counted as already used
        let dropped = Mutex(0)
        let full = Mutex(0)
        let log = try DecisionLog(
            path: path, onDrop: { dropped.withLock { $0 += 1 } }, maximumBytes: { 100 },
            onFull: { _, _ in full.withLock { $0 += 1 } })
        for _ in 0..<5 { log.append(Array(repeating: 0x42, count: 19)) }  // 20 bytes with the newline
        log.close()
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber).intValue
        #expect(size == 50 + 2 * 20)
        #expect(dropped.withLock { $0 } == 3)
        #expect(full.withLock { $0 } == 1, "told once per file")
    }

    @Test("decisionLog.maxBytes: range and unknown keys reported at their pointers")
    func configSection() throws {
        func issues(_ section: String) -> [String] {
            do {
                _ = try ServerSettings.compiler.compile(Array(#"{"handlers": [], "decisionLog": \#(section)}"#.utf8))
                return []
            } catch {
                return error.issues.map(\.description)
            }
        }
        #expect(issues(#"{"maxBytes": 1048576}"#).isEmpty)
        #expect(issues(#"{"maxBytes": 100}"#).contains { $0.hasPrefix("/decisionLog/maxBytes") })
        #expect(issues(#"{"maxBytes": "1G"}"#).contains { $0.hasPrefix("/decisionLog/maxBytes") })
        #expect(issues(#"{"maxbytes": 1048576}"#).contains { $0.hasPrefix("/decisionLog/maxbytes") })
        #expect(issues(#"[]"#).contains { $0.hasPrefix("/decisionLog") })
        let policy = try ServerSettings.compiler.compile(Array(#"{"handlers": [], "decisionLog": {"maxBytes": 1048576}}"#.utf8))
        #expect(DecisionLogSettings.from(policy).maxBytes == 1_048_576)
        #expect(
            DecisionLogSettings.from(try ServerSettings.compiler.compile(Array(#"{"handlers": []}"#.utf8))).maxBytes == 512 << 20)
    }
}
