import Foundation
import Testing

/// Issue 31, the `urlPatterns` chain index, against the real daemon and CLI: a chain of
/// thousands of handlers with only `urlPatterns` decides right through the index, and
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

    // How flat the chain is is measured by bench/rules.sh (URLPATTERN_SIZES) and asserted
    // structurally by URLPatternIndexTests.fewCandidates, never by a timed assertion here.
    /// Under the sanitizers the daemon compiles ten times slower; a smaller chain still puts
    /// the named handlers far past any linear scan's early exit.
    #if NAVPOLICYD_SANITIZER_LOCKS
        static let chainLength = 1_000
    #else
        static let chainLength = 3_000
    #endif

    @Test("3,000 urlPatterns handlers in the real daemon: each request gets the handler its pattern names")
    func flatChain() throws {
        let daemon = try DaemonProcess(config: Self.chain(Self.chainLength))
        for round in 0..<12 {
            let position = Self.chainLength - 1 - round * 2
            let (url, handler): (String, String?) =
                switch round % 3 {
                case 0: ("https://h\(position - 1).example/x", "u\(position - 1)")
                case 1: ("https://any.example/p\(position)/7", "u\(position)")
                default: ("https://none.example/nothing/\(round)", nil)
                }
            let response = try daemon.decide(url)
            #expect(response.status == 200)
            #expect(response.json?["handler"] as? String == handler, "\(url)")
        }
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
