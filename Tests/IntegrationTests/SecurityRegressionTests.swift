import Foundation
import Testing

/// The bypasses an outside attack found on the auth_request path, the decision endpoints and
/// the tokens, replayed from outside against the real binary (and the shipped nginx config).
/// See docs/security.md for the trust boundaries these tests hold.
@Suite("Security regressions", .serialized)
struct SecurityRegressionTests {
    static let policy = """
        {"defaultDecision": "allow", "handlers": [
          {"name": "logout", "type": "logout", "match": {"paths": ["/logout"]}},
          {"name": "loopback", "type": "cancel", "match": {"hosts": ["127.0.0.1"]}}
        ]}
        """
    /// Behind nginx every request is for 127.0.0.1, so only the path rule applies there.
    static let nginxPolicy = """
        {"defaultDecision": "allow", "handlers": [
          {"name": "logout", "type": "logout", "match": {"paths": ["/logout"]}}
        ]}
        """

    @Test("nginx: a client's X-Original-URL, X-Forwarded-* or Host never changes what is decided")
    func spoofedHeadersThroughNginx() throws {
        let origin = try TestOrigin()
        let daemon = try DaemonProcess(config: Self.nginxPolicy)
        let nginx = try NginxProcess(navpolicydPort: daemon.port, appPort: origin.port)
        let spoofs: [[String]] = [
            ["-H", "X-Original-URL: https://app.example.com/home"],
            ["-H", "X-Original-URI: /home"],
            ["-H", "X-Forwarded-Host: app.example.com", "-H", "X-Forwarded-Proto: https"],
            ["-H", "X-Original-URL: https://app.example.com/home", "-H", "X-Original-URI: /home"],
            ["-H", "X-Original-Method: OPTIONS"],
        ]
        for spoof in spoofs {
            let response = try Curl.request(nginx.baseURL + "/logout", spoof)
            #expect(response.status == 403, "\(spoof) got \(response.status)")
            #expect(response.headers["x-navigation-handler"] == "logout", "\(spoof)")
        }
        #expect(!origin.saw("/logout"))
        #expect(try Curl.request(nginx.baseURL + "/home", spoofs[0]).status == 200, "allowed pages still pass")
    }

    @Test("nginx: a request without a Host is refused, never decided on navpolicyd's own name")
    func hostlessRequestThroughNginx() throws {
        let origin = try TestOrigin()
        // A rule for one site: decided on any other host name (such as the upstream's), it passes.
        let daemon = try DaemonProcess(
            config:
                #"{"handlers": [{"name": "logout", "type": "logout", "match": {"hosts": ["127.0.0.1"], "paths": ["/logout"]}}]}"#)
        let nginx = try NginxProcess(navpolicydPort: daemon.port, appPort: origin.port)
        for head in ["GET /logout HTTP/1.0\r\n\r\n", "GET /logout HTTP/1.0\r\nHost:\r\n\r\n"] {
            let connection = try RawConnection(port: nginx.port)
            connection.send(head)
            let response = connection.receiveResponse()
            #expect(response.status != 200 && response.status != 0, "\(head.debugDescription) got \(response.status)")
        }
        #expect(!origin.saw("/logout"))
    }

    @Test("nginx: a cancel answers problem+json to a client that accepts JSON")
    func cancelAsProblemJSON() throws {
        let origin = try TestOrigin()
        let daemon = try DaemonProcess(config: Self.nginxPolicy)
        let nginx = try NginxProcess(navpolicydPort: daemon.port, appPort: origin.port)
        let response = try Curl.request(nginx.baseURL + "/logout", ["-H", "Accept: application/json"])
        #expect(response.status == 403)
        #expect(response.headers["content-type"] == "application/problem+json")
        #expect(response.json?["type"] as? String == "urn:navpolicyd:problem:navigation-cancelled")
        #expect(response.json?["handler"] as? String == "logout")
        #expect(response.headers["x-navigation-decision"] == "cancel")
    }

    @Test("/v1/authz: missing, repeated or contradictory target fields are 400, never decided")
    func authzTargetFields() throws {
        let daemon = try DaemonProcess(config: Self.policy)
        let authz = daemon.baseURL + "/v1/authz"
        let complete = [
            "-H", "X-Original-URI: /logout", "-H", "X-Forwarded-Host: app.example.com", "-H", "X-Forwarded-Proto: https",
        ]
        #expect(try Curl.request(authz, complete).status == 403)
        let refused: [[String]] = [
            ["-H", "X-Original-URI: /logout"],  // no forwarded host: the Host is navpolicyd's own
            ["-H", "X-Original-URI: /logout", "-H", "X-Forwarded-Host: app.example.com"],  // no scheme
            complete + ["-H", "X-Original-URL: https://app.example.com/home"],
            complete + ["-H", "X-Original-URI: /home"],
            complete + ["-H", "X-Forwarded-Host: other.example"],
            ["-H", "X-Original-URI: /logout", "-H", "X-Forwarded-Host:", "-H", "X-Forwarded-Proto: https"],
            ["-H", "X-Original-URI: /logout", "-H", "X-Forwarded-Host: a@b", "-H", "X-Forwarded-Proto: https"],
        ]
        for headers in refused {
            let response = try Curl.request(authz, headers)
            #expect(response.status == 400, "\(headers) got \(response.status)")
            #expect(response.headers["content-type"] == "application/problem+json")
        }
    }

    @Test("IPv4-mapped and NAT64 IPv6 literals meet the IPv4 rule on /v1/decide and /v1/authz")
    func mappedIPv6() throws {
        let daemon = try DaemonProcess(config: Self.policy)
        for host in ["[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[0:0:0:0:0:ffff:127.0.0.1]", "[64:ff9b::7f00:1]"] {
            let url = "http://\(host):8080/admin"
            let decided = try Curl.request(daemon.baseURL + "/v1/decide", ["-G", "--data-urlencode", "url=\(url)"])
            #expect(decided.json?["handler"] as? String == "loopback", "\(url): \(decided.body)")
            let authz = try Curl.request(
                daemon.baseURL + "/v1/authz",
                ["-H", "X-Original-URI: /admin", "-H", "X-Forwarded-Host: \(host)", "-H", "X-Forwarded-Proto: http"])
            #expect(authz.status == 403, "\(host) through /v1/authz")
        }
    }

    @Test("hosts are decided as current browsers map them (UTS #46 on Unicode 17), on /v1/decide and /v1/authz")
    func browserIDNA() throws {
        let daemon = try DaemonProcess(
            config: """
                {"defaultDecision": "allow", "handlers": [
                  {"name": "sharp-s", "type": "cancel", "match": {"hosts": ["ß.com", "faß.de"]}},
                  {"name": "payment", "type": "cancel", "match": {"hosts": ["pay.example.com"]}}
                ]}
                """)
        let cases = [
            ("https://ẞ.com/", "sharp-s", "https://xn--zca.com/"), ("https://FAẞ.de/x", "sharp-s", "https://xn--fa-hia.de/x"),
            ("https://pa\u{3164}y.example.com/", "payment", "https://pay.example.com/"),
            ("https://pay\u{180E}.example.com/", "payment", "https://pay.example.com/"),
            ("https://pay.exa\u{1D173}mple.com/", "payment", "https://pay.example.com/"),
        ]
        for (url, handler, canonical) in cases {
            let decided = try Curl.request(daemon.baseURL + "/v1/decide", ["-G", "--data-urlencode", "url=\(url)"])
            #expect(decided.status == 200, "\(url): \(decided.body)")
            #expect(decided.json?["handler"] as? String == handler, "\(url): \(decided.body)")
            #expect(decided.json?["url"] as? String == canonical)
        }
        let authz = try Curl.request(
            daemon.baseURL + "/v1/authz",
            ["-H", "X-Original-URL: https://ẞ.com/"])
        #expect(authz.status == 403)
    }

    @Test("requireTokenForDecide guards /v1/authz like /v1/decide")
    func authzToken() throws {
        let token = "aZ7kQ2xV9mP4wL8rT3nB"
        let daemon = try DaemonProcess(
            config: #"{"server":{"requireTokenForDecide":true},"handlers":[]}"#,
            environment: ["NAVPOLICY_ADMIN_TOKEN": token])
        let target = ["-H", "X-Original-URI: /", "-H", "X-Forwarded-Host: a.example", "-H", "X-Forwarded-Proto: https"]
        let anonymous = try Curl.request(daemon.baseURL + "/v1/authz", target)
        #expect(anonymous.status == 401)
        #expect(anonymous.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
        #expect(try Curl.request(daemon.baseURL + "/v1/authz", target + ["-H", "Authorization: Bearer \(token)"]).status == 204)
    }

    @Test("the right token followed by 256 or 512 more bytes is refused")
    func tokenLengthIsCompared() throws {
        let token = "lN4pW8qZ2vR6tK9mX3cB"
        let daemon = try DaemonProcess(config: Self.policy, environment: ["NAVPOLICY_ADMIN_TOKEN": token])
        let reload = daemon.baseURL + "/v1/policy/reload"
        for extra in [256, 512, 1] {
            let padded = token + String(repeating: "A", count: extra)
            #expect(try Curl.request(reload, ["-X", "POST", "-H", "Authorization: Bearer \(padded)"]).status == 401, "+\(extra)")
        }
        #expect(try Curl.request(reload, ["-X", "POST", "-H", "Authorization: Bearer \(token)"]).status == 200)
    }

    @Test(
        "placeholder and weak tokens stop the daemon at start",
        arguments: [
            "replace-me-with-at-least-16-random-characters", "changeme-changeme-changeme", "aaaaaaaaaaaaaaaaaaaaaaaa",
            "abababababababababab", "my secret admin token here",
        ])
    func weakTokensRefused(token: String) throws {
        for variable in ["NAVPOLICY_ADMIN_TOKEN", "NAVPOLICY_INTAKE_TOKEN"] {
            let result = try BinaryRunner.run(["serve", "--listen", "127.0.0.1:0"], environment: [variable: token])
            #expect(result.status == 2, "\(variable)=\(token)")
            #expect(result.stderr.contains(variable) || result.stderr.contains("token"), "\(result.stderr)")
            #expect(!result.stderr.contains(token), "the token itself is never printed")
        }
    }

    @Test("duplicate JSON members and repeated share fields are 400 on every body")
    func duplicateMembers() throws {
        let daemon = try DaemonProcess(config: Self.policy)
        let json = ["-H", "Content-Type: application/json", "-d"]
        let bodies: [(String, [String])] = [
            ("/v1/decide", json + [#"{"url":"https://app.example.com/home","url":"https://app.example.com/logout"}"#]),
            ("/v1/decide", json + [#"{"url":"https://a/","\u0075rl":"https://app.example.com/logout"}"#]),
            ("/v1/decide", json + [#"{"requests":[{"url":"https://a/","method":"GET","method":"POST"}]}"#]),
            ("/v1/decide", json + [#"{"requests":[{"url":"https://a/"}],"requests":[{"url":"https://b/"}]}"#]),
            ("/v1/intake", json + [#"{"url":"https://a.example/1","url":"https://a.example/2"}"#]),
            (
                "/v1/intake",
                json + [#"{"extensionItems":[{"attachments":[{"public.url":"https://a/","public.url":"https://b/"}]}]}"#]
            ),
            ("/v1/intake", ["-d", "url=https%3A%2F%2Fa.example%2F1&url=https%3A%2F%2Fa.example%2F2"]),
            ("/v1/intake/share-target", ["-d", "title=x&url=https%3A%2F%2Fa.example%2F1&url=https%3A%2F%2Fa.example%2F2"]),
            ("/v1/intake", ["-F", "url=https://a.example/1", "-F", "url=https://a.example/2"]),
            ("/v1/intake", ["-F", "url=https://a.example/1", "-F", "text=a", "-F", "text=b"]),
        ]
        for (path, arguments) in bodies {
            let response = try Curl.request(daemon.baseURL + path, arguments)
            #expect(response.status == 400, "\(path) \(arguments.last ?? ""): \(response.status) \(response.body)")
            #expect(response.headers["content-type"] == "application/problem+json")
        }
        let list = try Curl.request(daemon.baseURL + "/v1/intake")
        #expect(list.json?["items"] as? [Any] != nil)
        #expect((list.json?["items"] as? [Any])?.isEmpty == true, "nothing was stored: \(list.body)")
    }
}
