import Foundation
import JSONSupport
import Testing

/// Issue 40 on the built binary: a fixed port in a URL pattern means that port, as the
/// URLPattern standard reads it since whatwg/urlpattern PR 286. `{"port": "443"}` used to
/// compile to the empty port (an `https` dummy URL), so an allow-list meant for port 443 allowed
/// plaintext `http://` on the default port.
struct URLPatternFixedPortCLITests {
    private func exec(_ pattern: String, _ inputs: String) throws -> BinaryRunner.Result {
        try BinaryRunner.run(["urlpattern", "exec", "--pattern-args", pattern, "--input-args", inputs])
    }

    @Test("urlpattern exec: 443 matches 443, not the default port; *443 does not match 8080")
    func execFixedPorts() throws {
        let same = try exec(#"[{"port":"443"}]"#, #"[{"port":"443"}]"#)
        #expect(same.status == 0, "\(same.stderr)")
        let match = try JSONParser().parse(same.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(match.objectValue?["port"] == .object(["input": .string("443"), "groups": .object([:])]), "\(same.stdout)")

        for (pattern, input) in [
            (#"[{"hostname":"app.example.com","port":"443"}]"#, #"["http://app.example.com/"]"#),
            (#"[":p://a.com:443/"]"#, #"["https://a.com/"]"#),
            (#"[{"port":"*443"}]"#, #"[{"port":"8080"}]"#),
        ] {
            let none = try exec(pattern, input)
            #expect(none.status == 0, "\(none.stderr)")
            #expect(none.stdout == "null\n", "\(pattern) on \(input): \(none.stdout)")
        }
        for url in ["http://a.com:443/", "ws://a.com:443/"] {
            let itself = try exec("[\"\(url)\"]", "[\"\(url)\"]")
            #expect(itself.status == 0 && itself.stdout != "null\n", "\(url) does not match itself: \(itself.stdout)")
        }
    }

    @Test("an allow-list on port 443 no longer allows plaintext http on the default port")
    func allowListClosed() throws {
        let config = try BinaryRunner.temporaryFile(
            """
            {"defaultDecision": "cancel", "handlers": [
              {"name": "app", "type": "allow",
               "match": {"urlPatterns": [{"hostname": "app.example.com", "port": "443"}]}}
            ]}
            """)
        let plain = try BinaryRunner.run(["check", "--config", config, "http://app.example.com/"])
        #expect(plain.status == 0, "\(plain.stderr)")
        let decision = try #require(
            try JSONParser().parse(plain.stdout.trimmingCharacters(in: .whitespacesAndNewlines)).objectValue)
        #expect(decision["decision"] == .string("cancel"), "\(plain.stdout)")
        #expect(decision["handler"] == .null, "\(plain.stdout)")

        let onPort = try BinaryRunner.run(["check", "--config", config, "http://app.example.com:443/"])
        #expect(onPort.stdout.contains(#""decision":"allow","handler":"app""#), "\(onPort.stdout)")
    }
}
