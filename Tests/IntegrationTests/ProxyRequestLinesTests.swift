import Testing

/// The request lines the proxy hands to libcurl, as the origin receives them.
@Suite("proxy request lines: Via chain, empty values, long values, repeated X-Forwarded-For")
struct ProxyRequestLinesTests {
    @Test("the client's Via is kept before this proxy's; empty and long values arrive intact; X-Forwarded-For entries chain")
    func forwardedLines() throws {
        let origin = try TestOrigin()
        let daemon = try DaemonProcess(config: proxyTestConfig(origin: origin), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let long = String(repeating: "v", count: 3_000)
        let echoed = try Curl.request(
            origin.baseURL + "/echo",
            [
                "-x", "127.0.0.1:\(daemon.proxyPort())", "-H", "Via: 1.0 upstream-proxy", "-H", "X-Empty;", "-H",
                "X-Long: \(long)", "-H", "X-Forwarded-For: 192.0.2.1", "-H", "X-Forwarded-For: 192.0.2.2",
            ])
        let lines = echoed.body.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.hasSuffix("\r") ? String($0.dropLast()) : String($0)
        }
        #expect(lines.contains("Via: 1.0 upstream-proxy, 1.1 navpolicyd"), "\(echoed.body)")
        #expect(lines.contains { $0 == "X-Empty:" || $0 == "X-Empty: " }, "\(echoed.body)")
        #expect(lines.contains("X-Long: \(long)"))
        #expect(lines.contains("X-Forwarded-For: 192.0.2.1, 192.0.2.2, 127.0.0.1"), "\(echoed.body)")
    }
}
