import Foundation
import Testing

/// Issue 40 on the built binary: `analyze --against` never proves "equivalent" for chains that
/// differ outside their handlers' match blocks (the default decision), and every
/// counterexample it prints decides differently under `navpolicyd check`.
struct AnalysisSoundnessCLITests {
    static func chain(defaultDecision: String) -> String {
        """
        {"defaultDecision": "\(defaultDecision)", "handlers": [
          {"name": "admin", "type": "cancel", "match": {"hosts": ["a.example"], "pathPrefixes": ["/admin"]}},
          {"name": "app", "type": "allow", "match": {"hosts": ["a.example"]}},
          {"name": "pay", "type": "payment-redirect", "match": {"hosts": ["pay.example"]}}
        ]}
        """
    }

    @Test("analyze --against: a flipped defaultDecision is not equivalent; the counterexample decides differently")
    func defaultDecisionDiffers() throws {
        let allow = try BinaryRunner.temporaryFile(Self.chain(defaultDecision: "allow"))
        let cancel = try BinaryRunner.temporaryFile(Self.chain(defaultDecision: "cancel"))
        for compare in [[], ["--compare", "handler"]] {
            let result = try BinaryRunner.run(["analyze", "--config", allow, "--against", cancel, "--format", "json"] + compare)
            #expect(result.status == 1, "not equivalent exits 1: \(result.stdout) \(result.stderr)")
            let object = try #require(
                JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
            #expect(object["equivalent"] as? Bool == false, "\(result.stdout)")
            let examples = try #require(object["counterexamples"] as? [[String: Any]])
            #expect(!examples.isEmpty)
            for example in examples {
                let url = try #require(example["url"] as? String)
                let first = try BinaryRunner.run(["check", "--config", allow, url])
                let second = try BinaryRunner.run(["check", "--config", cancel, url])
                #expect(first.stdout != second.stdout, "\(url) decides alike: \(first.stdout)")
            }
        }
        // The same chain against itself is still proven equivalent.
        let same = try BinaryRunner.run(["analyze", "--config", allow, "--against", allow, "--format", "json"])
        #expect(same.status == 0, "\(same.stdout) \(same.stderr)")
    }
}
