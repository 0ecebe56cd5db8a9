import Foundation
import HTTPServer
import JSONSupport
import Synchronization
import TestScratchSupport
import TestSelection
import Testing

@testable import PolicyService

/// The pieces behind the operator-facing signals, without sockets: proxy and process
/// metrics, the auth-failure classification and rate limit, the decision log's reopen.
@Suite("visibility pieces", .tags(.sanitizerRelevant))
struct VisibilityUnitTests {
    @Test("proxy status labels: known codes as themselves, others by class, so origins cannot grow the set")
    func proxyCodeLabels() {
        #expect(ProxyMetrics.codeLabel(200) == "200")
        #expect(ProxyMetrics.codeLabel(504) == "504")
        #expect(ProxyMetrics.codeLabel(508) == "508")
        #expect(ProxyMetrics.codeLabel(299) == "2xx")
        #expect(ProxyMetrics.codeLabel(418) == "4xx")
        #expect(ProxyMetrics.codeLabel(599) == "5xx")
        #expect(ProxyMetrics.codeLabel(999) == "other")
        #expect(ProxyMetrics.codeLabel(-1) == "other")
        // The prebuilt labels agree with the rule for every code, the table's ends included.
        for status in 0...1_000 {
            let expected =
                !(100...599).contains(status)
                ? "other"
                : ProxyMetrics.statusCodes.contains(status) ? "\(status)" : "\(status / 100)xx"
            #expect(ProxyMetrics.codeLabel(status) == expected, "\(status)")
        }
    }

    @Test("proxy families appear only once a proxy listener enabled them, every error kind at 0")
    func proxyFamilies() {
        let metrics = Metrics(version: "test")
        #expect(!metrics.render(openConnections: 0, policyHandlers: nil, policyLoadedAt: nil).contains("navpolicyd_proxy_"))
        metrics.enableProxyMetrics()
        metrics.recordProxyRequest(status: 200)
        metrics.recordProxyRequest(status: 299)
        metrics.recordProxyUpstream(seconds: 0.2)
        metrics.recordProxyUpstreamError(kind: "connect")
        metrics.recordProxyBytes(sent: 10, received: 1000)
        let text = metrics.render(openConnections: 0, policyHandlers: nil, policyLoadedAt: nil)
        #expect(text.contains(#"navpolicyd_proxy_requests_total{code="200"} 1"#))
        #expect(text.contains(#"navpolicyd_proxy_requests_total{code="2xx"} 1"#))
        for kind in ProxyMetrics.upstreamErrorKinds {
            #expect(text.contains(#"navpolicyd_proxy_upstream_errors_total{kind="\#(kind)"} \#(kind == "connect" ? 1 : 0)"#))
        }
        #expect(text.contains(#"navpolicyd_proxy_upstream_duration_seconds_bucket{le="0.1"} 0"#))
        #expect(text.contains(#"navpolicyd_proxy_upstream_duration_seconds_bucket{le="0.25"} 1"#))
        #expect(text.contains("navpolicyd_proxy_upstream_duration_seconds_count 1\n"))
        #expect(text.contains(#"navpolicyd_proxy_bytes_total{direction="upstream"} 10"#))
        #expect(text.contains(#"navpolicyd_proxy_bytes_total{direction="downstream"} 1000"#))
    }

    @Test("request-duration buckets include 0.05, 0.25, 2.5 and 5 s")
    func longerBuckets() {
        let metrics = Metrics(version: "test")
        metrics.recordRequest(endpoint: "/v1/intake", status: 201, seconds: 3)
        let text = metrics.render(openConnections: 0, policyHandlers: nil, policyLoadedAt: nil)
        #expect(text.contains(#"navpolicyd_http_request_duration_seconds_bucket{endpoint="/v1/intake",le="2.5"} 0"#))
        #expect(text.contains(#"navpolicyd_http_request_duration_seconds_bucket{endpoint="/v1/intake",le="5.0"} 1"#))
        #expect(text.contains(#"le="0.05""#) && text.contains(#"le="0.25""#))
    }

    @Test("/proc/self/stat: fields are counted after the last ')' of the command name")
    func statParsing() {
        // A command name with spaces and parentheses, as a process may give itself.
        let line =
            "4242 (nav (x) d) S 1 4242 4242 0 -1 4194560 900 0 0 0 150 50 0 0 20 0 9 0 123456 987654321 2048 "
            + "18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 17 1 0 0 0 0 0"
        #expect(
            ProcessMetrics.parseStat(line)
                == ProcessMetrics.Stat(cpuTicks: 200, startTicks: 123456, virtualBytes: 987_654_321, residentPages: 2048))
        #expect(ProcessMetrics.parseStat("4242 (cut short) S 1 2") == nil)
        #expect(ProcessMetrics.parseStat("no parenthesis") == nil)
        #expect(ProcessMetrics.parseBootTime("cpu  1 2 3\nbtime 1764547200\nprocesses 9\n") == 1_764_547_200)
        #expect(ProcessMetrics.parseBootTime("cpu 1\n") == nil)
    }

    @Test("auth failure reasons: missing, malformed (not Bearer <visible ASCII>), wrong")
    func authReasons() {
        #expect(AuthFailureLog.reason(for: nil) == .missing)
        #expect(AuthFailureLog.reason(for: "Basic dXNlcjpwYXNz") == .malformed)
        #expect(AuthFailureLog.reason(for: "Bearer ") == .malformed)
        #expect(AuthFailureLog.reason(for: "Bearer two words") == .malformed)
        #expect(AuthFailureLog.reason(for: "Bearer " + String(repeating: "a", count: 513)) == .malformed)
        #expect(AuthFailureLog.reason(for: "bearer abc") == .wrong)
        #expect(AuthFailureLog.reason(for: "Bearer 0123456789abcdef") == .wrong)
    }

    @Test("auth.failed is rate-limited: 20 lines a second, then the next line says how many were left out")
    func authRateLimit() throws {
        let lines = Mutex<[String]>([])
        let clock = Atomic<Int64>(1_000_000)
        let failures = AuthFailureLog(
            log: EventLog { line in lines.withLock { $0.append(line) } }, now: { clock.load(ordering: .relaxed) })
        let request = HTTPRequest(method: "POST", rawTarget: "/v1/policy/reload", remoteAddress: "192.0.2.7")
        for _ in 0..<50 { failures.record(route: "/v1/policy/reload", realm: "navpolicyd", request: request) }
        #expect(lines.withLock { $0.count } == AuthFailureLog.linesPerSecond)
        clock.add(1_000, ordering: .relaxed)
        failures.record(route: "/v1/policy/reload", realm: "navpolicyd", request: request)
        let written = lines.withLock { $0 }
        #expect(written.count == AuthFailureLog.linesPerSecond + 1)
        #expect(written.last?.contains(#""suppressedBefore":30"#) == true, "\(written.last ?? "")")
        let first = try #require(written.first)
        #expect(first.contains(#""event":"auth.failed""#) && first.contains(#""reason":"missing""#))
        #expect(first.contains(#""peer":"192.0.2.7""#) && first.contains(#""route":"/v1/policy/reload""#))
    }

    @Test("a decision log whose path cannot be reopened keeps writing to the old file and reports why")
    func reopenFailureKeepsOldFile() throws {
        let directory = TestScratch.root + "/reopen-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let reports = Mutex<[String?]>([])
        let log = try DecisionLog(
            path: directory + "/decisions.ndjson", onDrop: {}, onReopen: { failure in reports.withLock { $0.append(failure) } })
        log.append(Array("one".utf8))
        // The whole directory goes away: the path can no longer be created.
        try FileManager.default.moveItem(atPath: directory, toPath: directory + ".gone")
        log.reopen()
        let deadline = Date().addingTimeInterval(10)
        while reports.withLock({ $0.isEmpty }), Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        log.append(Array("two".utf8))
        log.close()
        let failure = try #require(reports.withLock { $0.first } ?? nil, "no failure reported")
        #expect(failure.contains("No such file"))
        let kept = try String(contentsOfFile: directory + ".gone/decisions.ndjson", encoding: .utf8)
        #expect(kept == "one\ntwo\n")
    }
}
