import Foundation
import TestSelection
import Testing

extension DaemonProcess {
    /// The proxy listener's port, from the `proxy.listening` log line.
    func proxyPort() throws -> Int {
        let line = try #require(waitForLog { $0.contains(#""event":"proxy.listening""#) }, "no proxy.listening line")
        let range = try #require(line.range(of: #""address":"127.0.0.1:"#))
        return try #require(Int(line[range.upperBound...].prefix(while: \.isNumber)))
    }
}

/// The policy the proxy tests run: logout cancels, /pay redirects to the test origin.
func proxyTestConfig(origin: TestOrigin, proxySection: String = #"{"timeoutMilliseconds": 1500}"#) -> String {
    """
    {"defaultDecision": "allow", "handlers": [
      {"name": "logout", "type": "logout", "match": {"paths": ["/logout"]}},
      {"name": "payment", "type": "payment-redirect", "match": {"pathPrefixes": ["/pay"]},
       "location": "\(origin.baseURL)/checkout?target={url}"}
    ], "proxy": \(internalOriginAllowed(proxySection))}
    """
}

/// `section` with `"allowInternalDestinations": true` added: the test origins listen on
/// 127.0.0.1, which the forward proxy otherwise refuses (ProxyDestinationGuardTests tests the
/// guard). Sections that set it themselves, or run in reverse mode (`upstream` is pinned, so
/// exempt), are left as they are.
func internalOriginAllowed(_ section: String) -> String {
    guard section.hasPrefix("{"), !section.contains("\"upstream\""), !section.contains("allowInternalDestinations") else {
        return section
    }
    let rest = section.dropFirst()
    let setting = #""allowInternalDestinations": true"#
    return rest.trimmingPrefix(while: \.isWhitespace).hasPrefix("}") ? "{" + setting + "}" : "{" + setting + ", " + rest
}

@Suite("forward and reverse proxy", .serialized, .tags(.live, .sanitizerRelevant))
struct ProxyTests {
    @Test("forward proxy: allow is relayed, cancel is 403 (HTML or problem), redirect is 302; cancels never reach the origin")
    func forwardProxy() throws {
        let origin = try TestOrigin()
        let daemon = try DaemonProcess(config: proxyTestConfig(origin: origin), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let proxy = try ["-x", "127.0.0.1:\(daemon.proxyPort())"]

        let allowed = try Curl.request(origin.baseURL + "/account?tab=1", proxy)
        #expect(allowed.status == 200)
        #expect(allowed.body.contains("origin /account?tab=1"))
        #expect(allowed.headers["via"] == "1.1 navpolicyd")
        #expect(allowed.headers["x-origin"] == "test-origin")

        // Separate client connections, one kept-alive origin connection.
        let firstPeer = try Curl.request(origin.baseURL + "/peer", proxy).body
        let secondPeer = try Curl.request(origin.baseURL + "/peer", proxy).body
        #expect(firstPeer.hasPrefix("peer "))
        #expect(firstPeer == secondPeer)

        let posted = try Curl.request(origin.baseURL + "/echo", proxy + ["--data-binary", "a=1&b=2", "-H", "X-Custom: yes"])
        #expect(posted.status == 200)
        #expect(posted.body.contains("X-Custom: yes"))
        #expect(posted.body.contains("Via: 1.1 navpolicyd"))
        #expect(posted.body.hasSuffix("a=1&b=2"))
        #expect(!posted.body.lowercased().contains("proxy-connection"))

        let page = try Curl.request(origin.baseURL + "/logout", proxy + ["-H", "Accept: text/html,*/*"])
        #expect(page.status == 403)
        #expect(page.headers["content-type"]?.hasPrefix("text/html") == true)
        #expect(page.body.contains("navpolicy-blocked"))
        #expect(page.headers["x-navigation-decision"] == "cancel")
        #expect(page.headers["x-navigation-handler"] == "logout")
        #expect(page.headers["x-navigation-action"] == "logout")
        #expect(page.headers["x-navigation-decision-id"]?.isEmpty == false)

        let problem = try Curl.request(origin.baseURL + "/logout", proxy)
        #expect(problem.status == 403)
        #expect(problem.headers["content-type"] == "application/problem+json")
        #expect(problem.body.contains("navigation-cancelled"))
        let decisionMember = problem.json?["decision"] as? [String: Any]
        #expect(decisionMember?["handler"] as? String == "logout")
        #expect(decisionMember?["url"] as? String == origin.baseURL + "/logout")

        let redirect = try Curl.request(origin.baseURL + "/pay/now", proxy)
        #expect(redirect.status == 302)
        #expect(redirect.headers["location"]?.hasPrefix(origin.baseURL + "/checkout?target=http%3A%2F%2F127.0.0.1") == true)
        #expect(redirect.headers["x-navigation-handler"] == "payment")

        // The target's authority wins over a mismatched Host; %2F and dot segments do not hide /logout.
        let mismatched = try Curl.request(origin.baseURL + "/logout", proxy + ["-H", "Host: other.example"])
        #expect(mismatched.status == 403)
        let dotted = try Curl.request(origin.baseURL + "/x/../logout", proxy + ["--path-as-is"])
        #expect(dotted.status == 403)

        // Subresources pass through undecided with proxy.decide = navigations (the default).
        let script = try Curl.request(origin.baseURL + "/logout", proxy + ["-H", "Sec-Fetch-Mode: no-cors"])
        #expect(script.status == 200)
        #expect(origin.requests.filter { $0.contains("/logout") }.count == 1)
        #expect(!origin.saw("/pay/"))
    }

    @Test("forwarded answers carry the proxy's decision headers, never the origin's")
    func decisionHeadersOnForwardedAnswers() throws {
        let origin = try TestOrigin()
        let daemon = try DaemonProcess(config: proxyTestConfig(origin: origin), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let proxy = try ["-x", "127.0.0.1:\(daemon.proxyPort())"]
        for path in ["/account", "/spoof-decision"] {
            let allowed = try Curl.request(origin.baseURL + path, proxy)
            #expect(allowed.status == 200)
            #expect(allowed.headers["x-navigation-decision"] == "allow", "\(path)")
            #expect(allowed.headers["x-navigation-handler"] == nil, "\(path): the default decision has no handler")
            #expect(allowed.headers["x-navigation-decision-id"]?.isEmpty == false, "\(path)")
        }
        let raw = try RawConnection(port: daemon.proxyPort())
        raw.send("GET \(origin.baseURL)/spoof-decision HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        let head = String(decoding: raw.receive(maxBytes: 65_536), as: UTF8.self).lowercased()
        #expect(head.components(separatedBy: "x-navigation-decision:").count == 2, "exactly one decision field: \(head)")
        #expect(!head.contains("origin-says"))
    }

    @Test("CONNECT, upstream failures, timeouts and hostile requests get problems and never wedge the proxy")
    func failuresAndHostileInput() throws {
        let origin = try TestOrigin()
        let daemon = try DaemonProcess(config: proxyTestConfig(origin: origin), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let port = try daemon.proxyPort()
        let proxy = ["-x", "127.0.0.1:\(port)"]

        let connect = try RawConnection(port: port)
        // Tunnels are ConnectTunnelLiveTests' subject; a port outside proxy.connect.ports is a problem.
        connect.send("CONNECT example.com:22 HTTP/1.1\r\nHost: example.com:22\r\n\r\n")
        let refused = connect.receiveResponse()
        #expect(refused.status == 403)
        #expect(refused.body.contains("connect-port-refused"))

        let down = try Curl.request("http://127.0.0.1:\(try freeLoopbackPort())/", proxy)
        #expect(down.status == 502)
        #expect(down.body.contains("bad-gateway"))
        let slow = try Curl.request(origin.baseURL + "/slow", proxy)
        #expect(slow.status == 504)
        #expect(slow.body.contains("gateway-timeout"))
        let plain = try Curl.request("http://127.0.0.1:\(port)/logout")
        #expect(plain.status == 400)
        #expect(plain.body.contains("not-a-proxy-request"))
        let loop = try Curl.request("http://127.0.0.1:\(port)/", proxy)
        #expect(loop.status == 508)

        let hostile = [
            "GET \(origin.baseURL)/a HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            "GET \(origin.baseURL)/a HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
            "POST \(origin.baseURL)/a HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
            "POST \(origin.baseURL)/a HTTP/1.1\r\nHost: a\r\nContent-Length: 1, 2\r\n\r\n",
            "GET \(origin.baseURL)/a HTTP/1.1\r\nHost: a\r\n"
                + (0..<40).map { "X-Pad-\($0): \(String(repeating: "y", count: 1000))\r\n" }.joined() + "\r\n",
            "GET http://[::1 HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET http://a b/ HTTP/1.1\r\nHost: a\r\n\r\n",
            "GARBAGE\r\n\r\n",
        ]
        for request in hostile {
            let connection = try RawConnection(port: port)
            connection.send(request)
            let response = connection.receiveResponse()
            #expect(response.status == 0 || (400...599).contains(response.status), "\(request.prefix(60)): \(response.status)")
        }
        #expect(!origin.saw("GET /a"))
        // Still serving after all of the above.
        let after = try Curl.request(origin.baseURL + "/still-alive", proxy)
        #expect(after.status == 200)
    }

    @Test("reverse proxy: origin-form requests are decided on publicOrigin + target and forwarded to the upstream")
    func reverseProxy() throws {
        let origin = try TestOrigin()
        let section = #"{"upstream": "\#(origin.baseURL)", "publicOrigin": "https://app.example.com"}"#
        let daemon = try DaemonProcess(
            config: proxyTestConfig(origin: origin, proxySection: section), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let base = "http://127.0.0.1:\(try daemon.proxyPort())"

        let allowed = try Curl.request(base + "/echo?q=1")
        #expect(allowed.status == 200)
        #expect(allowed.body.contains("X-Forwarded-Host: app.example.com"))
        #expect(allowed.body.contains("X-Forwarded-Proto: https"))
        let cancelled = try Curl.request(base + "/logout", ["-H", "Accept: text/html"])
        #expect(cancelled.status == 403)
        #expect(cancelled.body.contains("https://app.example.com/logout"))
        let redirect = try Curl.request(base + "/pay/x")
        #expect(redirect.status == 302)
        #expect(redirect.headers["location"]?.contains("https%3A%2F%2Fapp.example.com%2Fpay%2Fx") == true)
        #expect(origin.saw("GET /echo?q=1"))
        #expect(!origin.saw("/logout"))
        #expect(!origin.saw("/pay"))
    }

    @Test("upstream connections stay pooled between bursts: a burst as wide as the last one opens no new connection")
    func upstreamConnectionsStayPooled() throws {
        let origin = try TestOrigin()
        let daemon = try DaemonProcess(
            config: proxyTestConfig(origin: origin, proxySection: #"{"timeoutMilliseconds": 5000}"#),
            arguments: ["--proxy-listen", "127.0.0.1:0"])
        let proxy = "127.0.0.1:\(try daemon.proxyPort())"
        // Eight transfers at once, ending one after another (the origin holds each a little
        // longer): eight upstream connections. libcurl's default pool limit follows the
        // transfers still running, so the last ones to end used to close pooled connections
        // that the next burst had to open again.
        func burst() throws -> Set<String> {
            let urls = (0..<8).map { "\(origin.baseURL)/peer?sleep=0.\($0 + 1)" }
            let output = try Curl.standardOutput(
                of: "/usr/bin/curl",
                [
                    "-s", "-g", "--max-time", "20", "-x", proxy, "--parallel", "--parallel-immediate", "--parallel-max", "8",
                    "-w", "\\n",
                ] + urls)
            // Split on the bodies themselves: curl writes a parallel transfer's `-w` newline
            // after its body, and another body may come between them (`peer 1peer 2\n\n`).
            let peers = output.components(separatedBy: "peer ").dropFirst().map {
                "peer " + $0.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            #expect(peers.count == 8, "\(output)")
            #expect(peers.allSatisfy { $0.dropFirst(5).allSatisfy(\.isNumber) && $0.count > 5 }, "\(output)")
            return Set(peers)
        }
        let first = try burst()
        let second = try burst()
        #expect(first.count == 8, "\(first)")
        #expect(second.isSubset(of: first), "new connections: \(second.subtracting(first)) (first burst \(first))")
    }
}
