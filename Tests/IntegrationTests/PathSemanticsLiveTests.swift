import Foundation
import Testing

/// Issue 26 items 2 and 4 from outside: a `/admin/*` rule holds for the spellings of the
/// directory index a browser or server sends, and an explained decision on a long path does
/// not cost (or answer) the path once per handler.
@Suite("Path semantics, live", .serialized)
struct PathSemanticsLiveTests {
    static let policy = """
        {"defaultDecision": "allow", "handlers": [
          {"name": "admin", "type": "cancel", "match": {"pathPatterns": ["/admin/*"]}}
        ], "proxy": {"timeoutMilliseconds": 1500, "allowInternalDestinations": true}}
        """

    /// The spellings the attack used (all the directory `/admin/` or under it), escaped for a query.
    static let adminSpellings = [
        "/admin/", "/admin//", "/admin/.", "/admin/;x", "/admin/x", "/admin/%2e", "/ADMIN/", "/admin/./", "/x/../admin/",
    ]

    @Test("GET /v1/decide: pathPatterns [\"/admin/*\"] cancels /admin/, /admin//, /admin/., /admin/;x, /admin/x")
    func directoryIndexOverDecide() throws {
        let daemon = try DaemonProcess(config: Self.policy)
        for path in Self.adminSpellings {
            let response = try daemon.decide("https://app.example.com" + path)
            #expect(response.status == 200, "\(path)")
            #expect(response.json?["decision"] as? String == "cancel", "\(path): \(response.body)")
            #expect(response.json?["handler"] as? String == "admin", "\(path)")
        }
        for path in ["/administrator/", "/", "/public/admin/"] {
            let response = try daemon.decide("https://app.example.com" + path)
            #expect(response.json?["decision"] as? String == "allow", "\(path): \(response.body)")
        }
    }

    @Test("forward proxy: /admin/ and its spellings are cancelled and never reach the origin")
    func directoryIndexThroughProxy() throws {
        let origin = try TestOrigin()
        let daemon = try DaemonProcess(config: Self.policy, arguments: ["--proxy-listen", "127.0.0.1:0"])
        let proxy = try ["-x", "127.0.0.1:\(daemon.proxyPort())", "--path-as-is"]
        for path in ["/admin/", "/admin//", "/admin/.", "/admin/;x"] {
            let response = try Curl.request(origin.baseURL + path, proxy)
            #expect(response.status == 403, "\(path) got \(response.status)")
            #expect(response.headers["x-navigation-handler"] == "admin", "\(path)")
        }
        #expect(!origin.saw("/admin"), "no spelling of /admin/ reached the origin")
        #expect(try Curl.request(origin.baseURL + "/home", proxy).status == 200, "other pages still pass")
    }

    /// 40 handlers each rejecting on `paths`: the old trace repeated the whole path in each
    /// reason (40 × 7 KB here; 2,000 patterns × 64 KB in a POST body was the amplification).
    @Test("explain=true on a 7 KB path answers a trace that does not repeat the path per handler")
    func explainedLongPath() throws {
        let handlers = (0..<40).map { #"{"name": "h\#($0)", "type": "cancel", "match": {"paths": ["/p\#($0)"]}}"# }
        let daemon = try DaemonProcess(config: #"{"handlers": [\#(handlers.joined(separator: ","))]}"#)
        let path = "/" + String(repeating: "a/", count: 3500)
        let response = try Curl.request(
            daemon.baseURL + "/v1/decide?explain=true&url=" + "https%3A%2F%2Fapp.example.com" + path)
        #expect(response.status == 200)
        let trace = try #require(response.json?["trace"] as? [[String: Any]])
        #expect(trace.count == 41)
        #expect(response.body.utf8.count < 64_000, "trace of \(response.body.utf8.count) bytes")
        let reason = try #require(trace.first?["reason"] as? String)
        #expect(reason.hasPrefix("path \"/a/a/a/") && reason.hasSuffix("…\" is not in paths"), "\(reason.prefix(300))")
    }
}
