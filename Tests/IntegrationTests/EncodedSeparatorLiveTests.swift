import Foundation
import Testing

/// Finding F2 from outside: `%2F` and `..%2F` got past `pathPrefixes` and `pathPatterns` in
/// every enforcing mode, because python `http.server` (the test origin is one) and many static
/// servers decode `%2F` before they resolve the path. A path with an encoded separator is now
/// decided on both readings and cancelled when either reading cancels.
@Suite("Encoded separators, live", .serialized)
struct EncodedSeparatorLiveTests {
    static let handlers = """
        "defaultDecision": "allow", "handlers": [
          {"name": "secret", "type": "cancel", "match": {"pathPrefixes": ["/secret"]}},
          {"name": "admin", "type": "cancel", "match": {"pathPatterns": ["/admin/*"]}}
        ]
        """

    /// The attacker's four paths, plus `%5C`, mixed case and `..%2F..%2F`.
    static let attackPaths = [
        "/secret%2findex.html", "/admin%2findex.html", "/x/..%2fsecret/index.html", "/%2fsecret/index.html",
        "/secret%5Cindex.html", "/x/y/..%2F..%2Fadmin%2Fx", "/%2Fsecret%2F",
        // The re-attack's: an escape inside a segment, then real `../`. WHATWG resolves `..`
        // first (`/public/secret/f.txt`); an origin that decodes first serves `/secret/f.txt`.
        "/public/x%2F../../secret/f.txt", "/p/q%2F../../admin/f.txt", "/p/q%2f%2e%2e/../secret/x",
        "/public/x%5C../../secret/f.txt",
    ]

    @Test("GET /v1/decide: the attacker's paths are cancelled; a legitimate %2F is allowed and keeps it")
    func overDecide() throws {
        let daemon = try DaemonProcess(config: "{\(Self.handlers)}")
        for path in Self.attackPaths {
            let url = "https://app.example.com" + path
            let response = try daemon.decide(url)
            #expect(response.status == 200, "\(path)")
            #expect(response.json?["decision"] as? String == "cancel", "\(path): \(response.body)")
            // The url is the WHATWG href: the path as sent unless it has real dot segments.
            if !path.contains("../") { #expect(response.json?["url"] as? String == url, "\(path): the url is the href") }
        }
        let legitimate = "https://app.example.com/api/projects/group%2Fname"
        let allowed = try daemon.decide(legitimate, explain: true)
        #expect(allowed.json?["decision"] as? String == "allow", "\(allowed.body)")
        #expect(allowed.json?["url"] as? String == legitimate)
        let reading = try #require(allowed.json?["pathReading"] as? String, "\(allowed.body)")
        #expect(reading.contains(#""/api/projects/group/name""#), "\(reading)")
    }

    @Test("reverse proxy to a python origin: the attacker's paths are 403 and never reach it")
    func throughReverseProxy() throws {
        let origin = try TestOrigin()
        let config = """
            {\(Self.handlers), "proxy": {"upstream": "\(origin.baseURL)", "publicOrigin": "https://app.example.com",
              "timeoutMilliseconds": 1500}}
            """
        let daemon = try DaemonProcess(config: config, arguments: ["--proxy-listen", "127.0.0.1:0"])
        let base = "http://127.0.0.1:\(try daemon.proxyPort())"
        for path in Self.attackPaths {
            let response = try Curl.request(base + path, ["--path-as-is"])
            #expect(response.status == 403, "\(path) got \(response.status)")
            #expect(response.headers["x-navigation-decision"] == "cancel", "\(path)")
        }
        #expect(!origin.saw("secret") && !origin.saw("admin"), "reached the origin: \(origin.requests)")
        let legitimate = try Curl.request(base + "/api/projects/group%2Fname", ["--path-as-is"])
        #expect(legitimate.status == 200, "a legitimate %2F passes")
        #expect(origin.saw("/api/projects/group%2Fname"), "\(origin.requests)")
    }

    @Test("nginx auth_request (deploy/nginx): the attacker's paths are 403 and never reach the origin")
    func throughNginx() throws {
        let origin = try TestOrigin()
        let daemon = try DaemonProcess(config: "{\(Self.handlers)}")
        let nginx = try NginxProcess(navpolicydPort: daemon.port, appPort: origin.port)
        for path in Self.attackPaths {
            let response = try Curl.request(nginx.baseURL + path, ["--path-as-is"])
            #expect(response.status == 403, "\(path) got \(response.status)")
        }
        #expect(!origin.saw("secret") && !origin.saw("admin"), "reached the origin: \(origin.requests)")
        #expect(try Curl.request(nginx.baseURL + "/api/projects/group%2Fname", ["--path-as-is"]).status == 200)
    }
}
