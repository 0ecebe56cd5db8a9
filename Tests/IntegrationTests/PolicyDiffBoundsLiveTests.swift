import Foundation
import TestScratchSupport
import Testing

/// Issue 38, item 12: "did you mean" cost ~1.6 µs per byte of an unknown key and echoed it
/// whole (an 8 MiB `POST /v1/policy/diff` took 13 s of CPU and answered a 16 MB 422), and diffs
/// ran side by side without analyze's one-at-a-time rule.
@Suite("policy diff: bounded errors and one run at a time, live", .serialized)
struct PolicyDiffBoundsLiveTests {
    @Test("a huge unknown key is answered with a small 422 that cuts it with an ellipsis")
    func hugeUnknownKey() throws {
        let daemon = try DaemonProcess()
        let key = String(repeating: "x", count: 1 << 20)
        let body =
            #"{"config": {"handlers": [], "\#(key)": 1, "defaultDecison": "allow"}, "requests": [{"url": "https://a.example/"}]}"#
        let file = try BinaryRunner.temporaryFile(body)
        let answer = try Curl.request(
            daemon.baseURL + "/v1/policy/diff",
            ["--max-time", "120", "-H", "Content-Type: application/json", "--data-binary", "@" + file])
        #expect(answer.status == 422, "\(answer.body.prefix(300))")
        #expect(answer.body.utf8.count < 4096, "the 422 echoes the key: \(answer.body.utf8.count) bytes")
        let errors = try #require(answer.json?["errors"] as? [String])
        #expect(errors.contains { $0.contains("xxxx…") }, "\(errors)")
        // A short near-miss still gets its suggestion.
        #expect(errors.contains { $0.contains(#"did you mean "defaultDecision"?"#) }, "\(errors)")
        var checker = ResponseChecker(document: try OpenAPIDocument.load())
        try checker.check("POST", "/v1/policy/diff", 422, answer)
    }

    @Test("a diff while an analysis runs is refused with 503 analysis-busy and Retry-After; served after")
    func sharesTheAnalysisSlot() throws {
        let daemon = try DaemonProcess()
        let slow = try BinaryRunner.temporaryFile(AnalyzeEndpointHardeningTests.slowBody())
        let held = try #require(
            try AnalyzeEndpointHardeningTests.holdSlot(
                daemon, start: { try AnalyzeEndpointHardeningTests.curlRun(daemon, body: slow) },
                answered: { !$0.process.isRunning }),
            "no request was refused while a run worked")
        let diffBody = #"{"config": {"handlers": []}, "requests": [{"url": "https://a.example/"}]}"#
        // The run holds the slot until its answer; a diff posted now may only race its end.
        // Bounded tries, a little apart: where diffs are not refused (the old code) they would
        // otherwise starve the run they wait for.
        var refused: Curl.Response?
        for _ in 0..<20 where held.run.process.isRunning {
            let answer = try AnalyzeEndpointHardeningTests.post(daemon, "/v1/policy/diff", diffBody)
            if answer.status == 503 {
                refused = answer
                break
            }
            #expect(answer.status == 200, "\(answer.body)")
            Thread.sleep(forTimeInterval: 0.1)
        }
        let busy = try #require(refused, "no diff was refused while the analysis ran")
        #expect(busy.headers["retry-after"] == "2", "\(busy.headers)")
        let problem = try #require(busy.json)
        #expect((problem["type"] as? String)?.hasSuffix("analysis-busy") == true, "\(busy.body)")
        var checker = ResponseChecker(document: try OpenAPIDocument.load())
        try checker.check("POST", "/v1/policy/diff", 503, busy)
        // Read before waiting: the report may be larger than the pipe holds.
        _ = held.run.output.fileHandleForReading.readDataToEndOfFile()
        held.run.process.waitUntilExit()
        #expect(try AnalyzeEndpointHardeningTests.post(daemon, "/v1/policy/diff", diffBody).status == 200)
        #expect(try AnalyzeEndpointHardeningTests.metric(daemon, "navpolicyd_policy_diff_busy_total") ?? 0 >= 1)
    }
}
