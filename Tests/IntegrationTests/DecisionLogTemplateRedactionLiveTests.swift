import Foundation
import TestScratchSupport
import Testing

/// Outside attack 9, F1: a location template's `{url}` puts the whole request URL, query and
/// all, percent-encoded into the location's path, host or userinfo, where no parameter name
/// shows; the decision log wrote the secret there while marking the line redacted.
@Suite("decision log redaction of {url} expansions, live", .serialized)
struct DecisionLogTemplateRedactionLiveTests {
    static func config(redact: String) -> String {
        """
        {"defaultDecision": "allow",
         "decisionLog": {"redactQueryParameters": \(redact)},
         "handlers": [
          {"name": "raw", "type": "payment-redirect", "match": {"hosts": ["raw.example"]},
           "location": "https://checkout.example.com/open/{url}"},
          {"name": "app", "type": "payment-redirect", "match": {"hosts": ["app.example"]},
           "location": "myapp://{url}/x"},
          {"name": "shadowed", "type": "cancel", "mode": "shadow", "match": {"hosts": ["raw.example"]},
           "location": "https://shadow.example/r/{url}"}
         ]}
        """
    }

    @Test(
        "a secret the request carries never reaches the log through a {url} in a location's path, host or a shadow location",
        arguments: [#"["token"]"#, #"["*"]"#])
    func expansionsAreRedacted(redact: String) throws {
        let logPath = TestScratch.root + "/template-redaction-\(UUID().uuidString).ndjson"
        let daemon = try DaemonProcess(config: Self.config(redact: redact), arguments: ["--decision-log", logPath])
        let urls = [
            "https://raw.example/cb?token=ZQ0017XK", "https://app.example/cb?x=1&token=ZQ0018XK",
            "https://RAW.example/cb?TOKEN=ZQ0019XK",
        ]
        for url in urls {
            let response = try daemon.decide(url)
            #expect(response.status == 200, "\(url): \(response.body)")
            #expect(response.body.contains("ZQ00"), "the answer itself is not redacted, only the log")
        }
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        let lines = try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == urls.count)
        for line in lines {
            #expect(!line.contains("ZQ00"), "secret in the log: \(line)")
            #expect(line.contains(#""redacted":true"#), "\(line)")
            // The location still shows where it sends, with the redacted URL in place.
            #expect(line.contains("%3DREDACTED"), "\(line)")
        }
    }
}
