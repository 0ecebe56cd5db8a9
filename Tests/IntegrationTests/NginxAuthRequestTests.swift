import Foundation
import Testing

/// nginx `auth_request` in front of a test origin, configured with deploy/nginx/.
@Suite("nginx auth_request", .serialized)
struct NginxAuthRequestTests {
    @Test("allow reaches the origin; cancel is a 403 page and redirect a 302, and neither reaches the origin")
    func allowCancelRedirect() throws {
        let origin = try TestOrigin()
        let config = """
            {"defaultDecision": "allow", "handlers": [
              {"name": "logout", "type": "logout", "match": {"paths": ["/logout"]}},
              {"name": "payment", "type": "payment-redirect", "match": {"pathPrefixes": ["/pay"]},
               "location": "\(origin.baseURL)/checkout?target={url}"}
            ]}
            """
        let daemon = try DaemonProcess(config: config)
        let nginx = try NginxProcess(navpolicydPort: daemon.port, appPort: origin.port)

        let allowed = try Curl.request(nginx.baseURL + "/account?tab=1")
        #expect(allowed.status == 200)
        #expect(allowed.body.contains("origin /account?tab=1"))
        #expect(origin.saw("GET /account?tab=1"))

        let cancelled = try Curl.request(nginx.baseURL + "/logout", ["-H", "Accept: text/html"])
        #expect(cancelled.status == 403)
        #expect(cancelled.body.contains("navpolicy-blocked"))
        #expect(cancelled.headers["x-navigation-decision"] == "cancel")
        #expect(cancelled.headers["x-navigation-handler"] == "logout")
        #expect(cancelled.headers["x-navigation-action"] == "logout")
        #expect(cancelled.headers["x-navigation-decision-id"]?.isEmpty == false)

        let redirected = try Curl.request(nginx.baseURL + "/pay/card")
        #expect(redirected.status == 302)
        let expectedTarget = "http%3A%2F%2F127.0.0.1%3A\(nginx.port)%2Fpay%2Fcard"
        #expect(redirected.headers["location"] == "\(origin.baseURL)/checkout?target=\(expectedTarget)")
        #expect(redirected.headers["x-navigation-handler"] == "payment")

        // A %2F-encoded or dot-segment spelling of the cancelled path is still cancelled.
        let dotted = try Curl.request(nginx.baseURL + "/x/../logout", ["--path-as-is"])
        #expect(dotted.status == 403)

        #expect(!origin.saw("/logout"))
        #expect(!origin.saw("/pay/"))
    }
}
