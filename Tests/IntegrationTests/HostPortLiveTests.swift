import Foundation
import TestSelection
import Testing

/// Issue 38, item 2: a port the client names in `Host` never takes a request past a handler
/// that cancels it without that port (nor past one that cancels it on that port), through
/// every front end that takes the host from a field the client sets: the ext_authz HTTP and
/// gRPC services, `/v1/authz` directly and behind the shipped nginx config. Real daemon, real
/// sockets, Envoy's and nginx's own request shapes.
@Suite("Host ports through every header-derived front end (live)", .serialized, .tags(.live))
struct HostPortLiveTests {
    /// The documented pattern (docs/configuration.md) with the empty port, a cancel pinned to
    /// port 8443, and an allow-list for `allow.example.com` on the default port only.
    static let handlers = """
        "handlers": [
          { "name": "admin", "type": "cancel", "action": "block-admin",
            "match": { "urlPatterns": ["https://*.example.com/admin{/*}?", "http://127.0.0.1/admin{/*}?"] } },
          { "name": "pinned", "type": "cancel", "match": { "urlPatterns": ["https://app.example.com:8443/pinned"] } },
          { "name": "listed", "type": "allow", "match": { "urlPatterns": ["https://allow.example.com/*"] } },
          { "name": "rest-of-allow", "type": "cancel", "match": { "hosts": ["allow.example.com"] } }
        ]
        """
    static let config = """
        { "defaultDecision": "allow", "extAuthz": {"pathPrefix": "/authz"}, \(handlers) }
        """

    /// Every spelling of a port a client can put in `Host`, with the default one and none.
    static let hosts = [
        "app.example.com", "app.example.com:8443", "app.example.com:443", "app.example.com:1", "APP.example.com:65535",
    ]

    @Test("ext_authz HTTP: /admin is cancelled on every Host port; a cancel pinned to 8443 still holds")
    func extAuthzHTTP() throws {
        let service = try ExtAuthzHTTPLiveTests.Service(config: Self.config)
        for host in Self.hosts {
            let response = try service.check(path: "/authz/admin/users", host: host)
            #expect(response.status == 403, "\(host): \(response.status) \(response.body)")
            #expect(response.headers["x-navigation-handler"] == "admin", "\(host)")
        }
        let pinned = try service.check(path: "/authz/pinned", host: "app.example.com:8443")
        #expect(pinned.status == 403 && pinned.headers["x-navigation-handler"] == "pinned", "\(pinned.body)")
        // The pinned cancel is not widened: the default port is not what it names.
        #expect(try service.check(path: "/authz/pinned", host: "app.example.com").status == 200)
        // An allow-list never admits more for a port the client adds: it admits less.
        #expect(try service.check(path: "/authz/page", host: "allow.example.com").status == 200)
        let listed = try service.check(path: "/authz/page", host: "allow.example.com:8443")
        #expect(listed.status == 403 && listed.headers["x-navigation-handler"] == "rest-of-allow", "\(listed.body)")
        // The decided URL keeps the port the client named (the reading that cancels reports its own).
        let other = try service.check(path: "/authz/welcome", host: "app.example.com:8443")
        #expect(other.status == 200)
    }

    @Test("ext_authz gRPC Check: the :authority port does not get /admin past the cancel")
    func extAuthzGRPC() throws {
        let (daemon, port) = try ExtAuthzGRPCLiveTests.start(config: Self.config)
        for host in Self.hosts {
            let answer = try ExtAuthzGRPCLiveTests.check(port, "GET", ("https", host, "/admin"))
            #expect(answer["allowed"] as? Bool == false, "\(host): \(answer)")
            #expect(answer["httpStatus"] as? Int == 403, "\(host): \(answer)")
            let headers = answer["headers"] as? [String: String]
            #expect(headers?["x-navigation-handler"] == "admin", "\(host): \(answer)")
        }
        let allowed = try ExtAuthzGRPCLiveTests.check(port, "GET", ("https", "app.example.com:8443", "/welcome"))
        #expect(allowed["allowed"] as? Bool == true, "\(allowed)")
        _ = daemon
    }

    @Test("/v1/authz: X-Forwarded-Host's and X-Original-URL's port do not get /admin past the cancel")
    func authzEndpoint() throws {
        let daemon = try DaemonProcess(config: Self.config)
        let url = daemon.baseURL + "/v1/authz"
        for host in Self.hosts {
            let response = try Curl.request(
                url, ["-H", "X-Forwarded-Host: \(host)", "-H", "X-Forwarded-Proto: https", "-H", "X-Original-URI: /admin"])
            #expect(response.status == 403, "\(host): \(response.status) \(response.body)")
            let original = try Curl.request(url, ["-H", "X-Original-URL: https://\(host)/admin/x"])
            #expect(original.status == 403, "X-Original-URL \(host): \(original.status)")
        }
        // Userinfo and an IPv6 literal around the port: the port still comes out.
        let userinfo = try Curl.request(url, ["-H", "X-Original-URL: https://u:p@app.example.com:8443/admin"])
        #expect(userinfo.status == 403)
        #expect(try Curl.request(url, ["-H", "X-Original-URL: https://app.example.com:8443/welcome"]).status == 204)
    }

    @Test("nginx on a non-default port (the shipped config): the port nginx sends does not get /admin past the cancel")
    func nginx() throws {
        let origin = try TestOrigin()
        let daemon = try DaemonProcess(config: Self.config)
        let nginx = try NginxProcess(navpolicydPort: daemon.port, appPort: origin.port)
        let cancelled = try Curl.request(nginx.baseURL + "/admin/users")
        #expect(cancelled.status == 403, "\(cancelled.status) \(cancelled.body)")
        #expect(cancelled.headers["x-navigation-handler"] == "admin")
        // The client's own port in Host changes nothing either (nginx sends its listening port).
        let spoofed = try Curl.request(nginx.baseURL + "/admin", ["-H", "Host: 127.0.0.1:443"])
        #expect(spoofed.status == 403, "\(spoofed.status)")
        #expect(try Curl.request(nginx.baseURL + "/welcome").status == 200)
        #expect(!origin.saw("/admin"))
    }

    @Test("reverse proxy: the client's Host is never read, so its port changes nothing (decided on publicOrigin)")
    func reverseProxy() throws {
        let origin = try TestOrigin()
        let config = """
            { "defaultDecision": "allow", \(Self.handlers),
              "proxy": {"upstream": "\(origin.baseURL)", "publicOrigin": "https://app.example.com"} }
            """
        let daemon = try DaemonProcess(config: config, arguments: ["--proxy-listen", "127.0.0.1:0"])
        let base = "http://127.0.0.1:\(try daemon.proxyPort())"
        for host in Self.hosts {
            let response = try Curl.request(base + "/admin", ["-H", "Host: \(host)"])
            #expect(response.status == 403, "\(host): \(response.status)")
        }
        #expect(!origin.saw("/admin"))
    }
}
