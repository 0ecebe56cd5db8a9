import Foundation
import TestSelection
import Testing

/// The status page rendered by headless Chromium (Debian `chromium`): what a person sees.
@Suite("status page in Chromium", .serialized, .tags(.live, .browser))
struct StatusPageBrowserTests {
    static let config = """
        {"defaultDecision": "allow", "handlers": [
          {"name": "logout", "type": "logout", "match": {"paths": ["/logout", "/signout"]}},
          {"name": "beta-block", "type": "cancel", "mode": "shadow", "action": "beta", "match": {"pathPrefixes": ["/beta"]}},
          {"name": "payment", "type": "payment-redirect", "match": {"hosts": ["shop.example"], "pathPrefixes": ["/pay"]},
           "location": "https://pay.example/checkout?next={url}"},
          {"name": "about", "type": "about", "match": {"paths": ["/about"]}}
        ]}
        """

    /// Where the screenshot goes: `.build/test-output/` under the package (docs/images holds the copy the docs show).
    static var outputDirectory: URL {
        BinaryRunner.packageRoot.appendingPathComponent(".build/test-output", isDirectory: true)
    }

    private func chromium(_ arguments: [String], profile: URL) throws -> String {
        try Curl.standardOutput(
            of: "/usr/bin/chromium",
            [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage",
                "--user-data-dir=\(profile.path)", "--hide-scrollbars", "--timeout=15000",
                // Lets the page's script fetch /v1/status and render before the dump or the screenshot.
                "--virtual-time-budget=4000",
            ] + arguments)
    }

    @Test("the page shows the chain, counters and listeners; its script runs under the CSP and refreshes it")
    func render() throws {
        let daemon = try DaemonProcess(config: Self.config, arguments: ["--proxy-listen", "127.0.0.1:0"])
        let proxyPort = try daemon.proxyPort()
        for path in ["/logout", "/logout", "/beta/x", "/home"] {
            let url = "https://app.example" + path
            #expect(try Curl.request(daemon.baseURL + "/v1/decide?url=" + url).status == 200)
        }
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("navpolicyd-status-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }

        let dom = try chromium(["--dump-dom", daemon.baseURL + "/"], profile: profile)
        // Set only by the script after it fetched /v1/status and rebuilt the page: the CSP
        // hash let it run and the JSON it read renders.
        #expect(dom.contains(#"<span id="refresh-state">live</span>"#), "\(dom)")
        #expect(dom.contains(#"<li class="link" data-handler="logout">"#))
        #expect(dom.contains(#"<li class="link shadow" data-handler="beta-block">"#))
        #expect(dom.contains(#"<span class="badge">shadow</span>"#))
        #expect(dom.contains("cancel · open-external → https://pay.example/checkout?next={url}"))
        #expect(dom.contains(#"<span class="position">1.</span> <span class="name">logout</span>"#))
        // logout decided twice (cancel) since start and in the last minute.
        #expect(
            dom.contains(
                #"<tr class="cancel"><th>cancel</th><td class="since-start">2</td><td class="last-minute">2</td></tr>"#))
        #expect(dom.contains("api 127.0.0.1:\(daemon.port)"))
        #expect(dom.contains("proxy 127.0.0.1:\(proxyPort)"))
        #expect(dom.contains(#"<dd id="intake-state">open</dd>"#))

        try FileManager.default.createDirectory(at: Self.outputDirectory, withIntermediateDirectories: true)
        let screenshot = Self.outputDirectory.appendingPathComponent("status-page.png")
        try? FileManager.default.removeItem(at: screenshot)
        _ = try chromium(
            ["--window-size=1280,1000", "--screenshot=\(screenshot.path)", daemon.baseURL + "/status"], profile: profile)
        let png = try Data(contentsOf: screenshot)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "not a PNG")
    }
}
