import Foundation
import Testing

/// Issue 31, the `urlPatterns` chain index, against the real daemon and CLI: a chain of
/// thousands of handlers with only `urlPatterns` decides in the time a short one does (before
/// the index every handler was tried: ~0.3 s a decision at 3,000 in a debug build), and
/// `test --coverage` counts each `urlPatterns` entry.
@Suite("urlPatterns chain index, live")
struct URLPatternIndexLiveTests {
    static func chain(_ count: Int) -> String {
        let handlers = (0..<count).map { index in
            let pattern =
                index % 2 == 0 ? #""https://h\#(index).example/*""# : #"{"pathname": "/p\#(index)/:id"}"#
            return #"{"name": "u\#(index)", "type": "cancel", "match": {"urlPatterns": [\#(pattern)]}}"#
        }
        return #"{"defaultDecision": "allow", "handlers": [\#(handlers.joined(separator: ", "))]}"#
    }

    @Test("3,000 urlPatterns handlers: right handler, and each decision well under the unindexed cost")
    func flatChain() throws {
        let daemon = try DaemonProcess(config: Self.chain(3_000))
        var times: [Double] = []
        for round in 0..<12 {
            let position = 2_999 - round * 2
            let (url, handler): (String, String?) =
                switch round % 3 {
                case 0: ("https://h\(position - 1).example/x", "u\(position - 1)")
                case 1: ("https://any.example/p\(position)/7", "u\(position)")
                default: ("https://none.example/nothing/\(round)", nil)
                }
            let start = Date()
            let response = try daemon.decide(url)
            times.append(Date().timeIntervalSince(start))
            #expect(response.status == 200)
            #expect(response.json?["handler"] as? String == handler, "\(url)")
        }
        let median = times.sorted()[times.count / 2]
        // One curl round trip is ~10-30 ms here; trying all 3,000 patterns cost ~300 ms more.
        #expect(median < 0.15, "median \(median) s per decision")
    }

    @Test("test --coverage counts urlPatterns entries and names the one no case reached")
    func coverage() throws {
        let config = try BinaryRunner.temporaryFile(
            #"{"handlers": [{"name": "admin", "type": "cancel", "match": {"urlPatterns": ["https://example.com/admin/*", {"pathname": "/root/*"}]}}]}"#
        )
        let cases = try BinaryRunner.temporaryFile(
            #"[{"url": "https://example.com/admin/x", "expect": {"decision": "cancel", "handler": "admin"}}]"#)
        let result = try BinaryRunner.run(["test", "--config", config, "--coverage", cases])
        #expect(result.stdout.contains(#"NOT COVERED admin urlPatterns[1] "{"pathname":"/root/*"}""#), "\(result.stdout)")
        #expect(result.stdout.contains("coverage: 66.7% (2 of 3 handlers and entries)"), "\(result.stdout)")
    }
}
