import Foundation
import Testing

/// Issue 26, items 1 (proxy part), 9 and 12: the forward and reverse proxy refuse internal
/// destinations after resolution unless the operator pinned them, whatever `Sec-Fetch-Mode`
/// says; and an origin head that breaks the field syntax is a 502 carrying the decision fields.
@Suite("proxy: internal destinations and malformed origin heads", .serialized)
struct ProxyDestinationGuardTests {
    /// The proxy policy of these tests: logout cancels, everything else is allowed; the proxy
    /// section as given (the guard is on unless it says otherwise).
    static func config(proxySection: String) -> String {
        """
        {"defaultDecision": "allow", "handlers": [
          {"name": "logout", "type": "logout", "match": {"paths": ["/logout"]}}
        ], "proxy": \(proxySection)}
        """
    }

    /// Names `/etc/hosts` points at a loopback address other than `localhost` (`runsc`, `vm`
    /// here): what a name check misses and the after-resolution check does not.
    static func loopbackNamesFromHostsFile() -> [String] {
        let text = (try? String(contentsOfFile: "/etc/hosts", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").flatMap { line -> [String] in
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard let address = words.first, address.hasPrefix("127.") else { return [] }
            return words.dropFirst().prefix { !$0.hasPrefix("#") }.filter { !$0.lowercased().hasPrefix("localhost") }
        }
    }

    /// A daemon whose forward proxy pins `app.navpolicyd.test:PORT` (the origin's port) to
    /// 127.0.0.1 in proxy.resolve, the guard on: the daemon, the pinned `host:port` and curl's
    /// proxy arguments.
    static func pinnedProxy(
        to origin: TestOrigin, environment: [String: String] = [:]
    ) throws -> (daemon: DaemonProcess, app: String, proxy: [String]) {
        let app = "app.navpolicyd.test:\(origin.port)"
        let section = #"{"timeoutMilliseconds": 1500, "resolve": {"\#(app)": "127.0.0.1"}}"#
        let daemon = try DaemonProcess(
            config: config(proxySection: section), arguments: ["--proxy-listen", "127.0.0.1:0"], environment: environment)
        return (daemon, app, try ["-x", "127.0.0.1:\(daemon.proxyPort())"])
    }

    /// The value of one sample in the exposition text.
    static func sample(_ metrics: String, _ series: String) -> Double? {
        metrics.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
    }

    @Test(
        "guard on: every spelling of loopback (0.0.0.0, [::1], mapped IPv6, localhost, *.localhost, 127.1, /etc/hosts names) is refused 403, navigations and no-cors alike; the origin sees nothing"
    )
    func internalDestinationsRefused() throws {
        let origin = try TestOrigin()
        let daemon = try DaemonProcess(
            config: Self.config(proxySection: #"{"timeoutMilliseconds": 1500}"#), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let proxy = try ["-x", "127.0.0.1:\(daemon.proxyPort())"]
        let port = origin.port
        var targets = [
            "http://127.0.0.1:\(port)/a", "http://0.0.0.0:\(port)/b", "http://[::1]:\(port)/c",
            "http://[::ffff:127.0.0.1]:\(port)/d", "http://localhost:\(port)/e", "http://foo.localhost:\(port)/f",
            "http://127.1:\(port)/g", "http://2130706433:\(port)/h", "http://0x7f.1:\(port)/i", "http://[::]:\(port)/j",
        ]
        targets += Self.loopbackNamesFromHostsFile().map { "http://\($0):\(port)/hosts-file" }
        var refused = 0
        for target in targets {
            // A navigation (decided, allowed) and a no-cors subresource (undecided under the
            // default decide: navigations, item 9): the guard applies to both.
            for mode in ["navigate", "no-cors"] {
                let answer = try Curl.request(target, proxy + ["-H", "Sec-Fetch-Mode: \(mode)"])
                #expect(answer.status == 403, "\(target) \(mode): \(answer.status) \(answer.body)")
                #expect(answer.headers["content-type"] == "application/problem+json", "\(target) \(mode)")
                #expect(answer.json?["type"] as? String == "urn:navpolicyd:problem:internal-destination")
                #expect(!answer.body.contains("127.0.0.1") && !answer.body.contains("::1"), "the address is logged, not told")
                if mode == "navigate" {
                    // The policy allowed it; the proxy's own fields say so next to the refusal.
                    #expect(answer.headers["x-navigation-decision"] == "allow", "\(target)")
                    #expect(answer.headers["x-navigation-decision-id"]?.isEmpty == false)
                } else {
                    #expect(answer.headers["x-navigation-decision"] == nil, "\(target): no-cors is not decided")
                }
                refused += 1
            }
        }
        #expect(origin.requests.isEmpty, "reached the origin: \(origin.requests)")

        let metrics = try Curl.request(daemon.baseURL + "/metrics").body
        #expect(Self.sample(metrics, #"navpolicyd_proxy_refused_total{reason="internal-destination"}"#) == Double(refused))
        #expect(Self.sample(metrics, #"navpolicyd_proxy_upstream_errors_total{kind="connect"}"#) == 0)
        let logged = daemon.waitForLog { $0.contains(#""event":"proxy.destination_refused""#) }
        #expect(logged?.contains(#""address":"127.0.0.1""#) == true, "\(logged ?? "no proxy.destination_refused line")")

        // A cancel is still a cancel: the decision comes first, the guard only for what it allows.
        let cancelled = try Curl.request(origin.baseURL + "/logout", proxy)
        #expect(cancelled.status == 403)
        #expect(cancelled.headers["x-navigation-decision"] == "cancel")
        #expect(cancelled.body.contains("navigation-cancelled"))
    }

    @Test("a destination pinned in proxy.resolve is reached; the same address under another name is still refused")
    func pinnedDestinationReached() throws {
        let origin = try TestOrigin()
        let (daemon, app, proxy) = try Self.pinnedProxy(to: origin)
        for mode in ["navigate", "no-cors"] {
            let pinned = try Curl.request("http://\(app)/pinned-\(mode)", proxy + ["-H", "Sec-Fetch-Mode: \(mode)"])
            #expect(pinned.status == 200, "\(mode): \(pinned.status) \(pinned.body)")
            #expect(pinned.body.contains("origin /pinned-\(mode)"))
        }
        // The pin exempts that host:port, not the address: other names for it stay refused.
        for target in ["http://127.0.0.1:\(origin.port)/direct", "http://localhost:\(origin.port)/direct"] {
            #expect(try Curl.request(target, proxy).status == 403, "\(target)")
        }
        #expect(!origin.saw("/direct"), "\(origin.requests)")
        withExtendedLifetime(daemon) {}
    }

    @Test("Chromium: a page's no-cors <img> and <script> to 127.0.0.1 (undecided under decide: navigations) never reach it")
    func browserSubresourcesRefused() throws {
        let origin = try TestOrigin()
        // The page comes from a pinned name; the subresources name the same origin by address.
        let page = "localhost:\(origin.port)"
        let section = #"{"timeoutMilliseconds": 1500, "resolve": {"\#(page)": "127.0.0.1"}}"#
        let daemon = try DaemonProcess(config: Self.config(proxySection: section), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("navpolicyd-chromium-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        let dom = try ChromiumProxyTests().dumpDOM(
            "http://\(page)/embed?src=http://127.0.0.1:\(origin.port)/internal-", proxyPort: daemon.proxyPort(),
            profile: profile)
        #expect(dom.contains(#"<h1 id="origin">embed</h1>"#), "\(dom)")
        #expect(origin.saw("GET /embed"))
        // (The page's own request names the URL in its query: only requests *for* it count.)
        #expect(!origin.requests.contains { $0.hasPrefix("GET /internal-") }, "\(origin.requests)")
        let refusals = daemon.logLines.filter { $0.contains(#""event":"proxy.destination_refused""#) }
        #expect(refusals.count >= 2, "\(daemon.logLines)")
    }

    @Test("proxy variables in the daemon's environment are ignored: it connects to the origin itself")
    func environmentProxyIgnored() throws {
        let origin = try TestOrigin()
        let elsewhere = try TestOrigin()
        let (daemon, app, proxy) = try Self.pinnedProxy(
            to: origin, environment: ["http_proxy": elsewhere.baseURL, "all_proxy": elsewhere.baseURL])
        let answer = try Curl.request("http://\(app)/direct", proxy)
        #expect(answer.status == 200, "\(answer.status) \(answer.body)")
        #expect(origin.saw("GET /direct"))
        #expect(elsewhere.requests.isEmpty, "went through the environment's proxy: \(elsewhere.requests)")
        withExtendedLifetime(daemon) {}
    }

    @Test("proxy.allowInternalDestinations: true turns the guard off")
    func guardOff() throws {
        let origin = try TestOrigin()
        let section = #"{"timeoutMilliseconds": 1500, "allowInternalDestinations": true}"#
        let daemon = try DaemonProcess(config: Self.config(proxySection: section), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let proxy = try ["-x", "127.0.0.1:\(daemon.proxyPort())"]
        for target in ["\(origin.baseURL)/open", "http://localhost:\(origin.port)/open-by-name"] {
            let answer = try Curl.request(target, proxy + ["-H", "Sec-Fetch-Mode: no-cors"])
            #expect(answer.status == 200, "\(target): \(answer.status)")
        }
        #expect(origin.saw("GET /open") && origin.saw("GET /open-by-name"))
    }

    @Test("reverse mode: proxy.upstream on 127.0.0.1 is the operator's pin and is reached")
    func reverseUpstreamReached() throws {
        let origin = try TestOrigin()
        let section = #"{"upstream": "\#(origin.baseURL)", "publicOrigin": "https://app.example.com"}"#
        let daemon = try DaemonProcess(config: Self.config(proxySection: section), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let port = try daemon.proxyPort()
        let answer = try Curl.request("http://127.0.0.1:\(port)/reverse?x=1")
        #expect(answer.status == 200, "\(answer.status) \(answer.body)")
        #expect(answer.body.contains("origin /reverse?x=1"))
        #expect(answer.headers["x-navigation-decision"] == "allow")
    }

    @Test(
        "an origin head with a bare CR (value, reason, line end), a bare LF, NUL, obs-fold or a spaced name: 502 problem with the decision fields, never 500"
    )
    func malformedOriginHeads() throws {
        let origin = try TestOrigin()
        let (daemon, app, proxy) = try Self.pinnedProxy(to: origin)
        for kind in ["cr-value", "cr-value-end", "cr-reason", "lf-value", "nul-value", "obs-fold", "spaced-name"] {
            let answer = try Curl.request("http://\(app)/bad-head?kind=\(kind)", proxy)
            #expect(answer.status == 502, "\(kind): \(answer.status) \(answer.body)")
            #expect(answer.headers["content-type"] == "application/problem+json", "\(kind)")
            #expect(answer.json?["type"] as? String == "urn:navpolicyd:problem:bad-gateway", "\(kind)")
            #expect(answer.headers["x-navigation-decision"] == "allow", "\(kind)")
            #expect(answer.headers["x-navigation-decision-id"]?.isEmpty == false, "\(kind)")
            #expect(answer.headers["x-bad"] == nil, "\(kind): nothing of the malformed head is relayed")
        }
        #expect(origin.requests.filter { $0.contains("/bad-head") }.count == 7)
        // The proxy keeps serving, on a clean connection.
        let after = try Curl.request("http://\(app)/after", proxy)
        #expect(after.status == 200)
        #expect(after.body.contains("origin /after"))
        withExtendedLifetime(daemon) {}
    }
}
