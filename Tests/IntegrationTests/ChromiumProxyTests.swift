import Foundation
import TestSelection
import Testing

/// Headless Chromium (Debian `chromium`) browsing through the forward proxy.
@Suite("Chromium through the proxy", .serialized, .tags(.live, .browser))
struct ChromiumProxyTests {
    /// Loads `url` through the proxy and returns the DOM Chromium ends up with.
    func dumpDOM(_ url: String, proxyPort: Int, profile: URL) throws -> String {
        try Curl.standardOutput(
            of: "/usr/bin/chromium",
            [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage",
                "--user-data-dir=\(profile.path)", "--proxy-server=http://127.0.0.1:\(proxyPort)",
                // Chromium never proxies loopback by default; the app's host name is mapped by proxy.resolve anyway.
                "--proxy-bypass-list=<-loopback>", "--timeout=15000", "--dump-dom", url,
            ])
    }

    @Test("allowed page arrives, logout shows the policy page, payment lands on the redirect location")
    func browse() throws {
        let origin = try TestOrigin()
        let app = "app.navpolicyd.test:\(origin.port)"
        let section = #"{"resolve": {"\#(app)": "127.0.0.1"}}"#
        let config = """
            {"defaultDecision": "allow", "handlers": [
              {"name": "logout", "type": "logout", "match": {"paths": ["/logout"]}},
              {"name": "payment", "type": "payment-redirect", "match": {"pathPrefixes": ["/pay"]},
               "location": "http://\(app)/checkout?target={url}"}
            ], "proxy": \(section)}
            """
        let daemon = try DaemonProcess(config: config, arguments: ["--proxy-listen", "127.0.0.1:0"])
        let proxyPort = try daemon.proxyPort()
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("navpolicyd-chromium-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }

        let welcome = try dumpDOM("http://\(app)/welcome", proxyPort: proxyPort, profile: profile)
        #expect(welcome.contains("origin /welcome"), "\(welcome)")
        #expect(origin.saw("GET /welcome"))

        let logout = try dumpDOM("http://\(app)/logout", proxyPort: proxyPort, profile: profile)
        #expect(logout.contains("navpolicy-blocked"), "\(logout)")
        #expect(logout.contains("http://\(app)/logout"))

        let payment = try dumpDOM("http://\(app)/pay/card?amount=5", proxyPort: proxyPort, profile: profile)
        #expect(payment.contains("origin /checkout?target=http%3A%2F%2Fapp.navpolicyd.test"), "\(payment)")
        #expect(origin.saw("GET /checkout?target="))

        #expect(!origin.saw("/logout"), "\(origin.requests)")
        #expect(!origin.saw("/pay/"), "\(origin.requests)")
    }
}
