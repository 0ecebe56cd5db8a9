import Foundation
import TestScratchSupport
import Testing

/// Issue 38, item 6: a userinfo password (`https://user:secret@host/`) reached the decision
/// log whatever `redactQueryParameters` said, `"*"` included, and parameter names that PHP
/// reads as a listed one (`access.token`, `access token`, `access+token`, `access[token`,
/// `access%2Etoken` for `access_token`) kept their values.
@Suite("decision log: passwords and server-read parameter names, live", .serialized)
struct DecisionLogSecretURLLiveTests {
    static func config(redact: String?) -> String {
        let section = redact.map { #""decisionLog": {"redactQueryParameters": \#($0)},"# } ?? ""
        return """
            {"defaultDecision": "allow", \(section)
             "handlers": [
              {"name": "pay", "type": "payment-redirect", "match": {"hosts": ["pay.example"]},
               "location": "https://checkout.example.com/open?target={url}"}
             ]}
            """
    }

    /// The log's lines after deciding `urls` on a daemon with `redact`.
    static func loggedLines(redact: String?, urls: [String]) throws -> [Substring] {
        let logPath = TestScratch.root + "/secret-url-\(UUID().uuidString).ndjson"
        let daemon = try DaemonProcess(config: config(redact: redact), arguments: ["--decision-log", logPath])
        for url in urls {
            let response = try daemon.decide(url)
            #expect(response.status == 200, "\(url): \(response.body)")
        }
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        return try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n")
    }

    @Test(
        "a URL's password never reaches the log, in any URL field or {url} expansion, with or without the setting",
        arguments: [nil, #"[]"#, #"["*"]"#, #"["code"]"#])
    func passwordIsAlwaysRedacted(redact: String?) throws {
        let urls = [
            "https://alice:PW0038A@app.example/p", "https://bob:PW0038B@pay.example/cb?x=1",
            "HTTPS:\\\\carol:PW0038C@app.example/", "https://dave:PW0038D:x@e@app.example/",
        ]
        let lines = try Self.loggedLines(redact: redact, urls: urls)
        #expect(lines.count == urls.count)
        for line in lines {
            #expect(!line.contains("PW0038"), "password in the log: \(line)")
            #expect(line.contains(":REDACTED@") || line.contains("%3AREDACTED%40"), "\(line)")
            #expect(line.contains(#""redacted":true"#), "\(line)")
        }
        // The payment-redirect location carries the request URL, password and all, as `{url}`
        // (under "*" the whole value is replaced).
        if redact != #"["*"]"# {
            #expect(lines[1].contains("target=https%3A%2F%2Fbob%3AREDACTED%40pay.example"), "\(lines[1])")
        }
    }

    @Test("every spelling PHP reads as a listed name is redacted")
    func serverReadNames() throws {
        let spellings = [
            "access_token", "access.token", "access+token", "access%20token", "access%2Etoken", "access[token",
            "ACCESS.TOKEN", "+access.token", "access_token%00x",
        ]
        let urls = spellings.enumerated().map { "https://app.example/cb?\($0.element)=TK0038X\($0.offset)&keep=1" }
        let lines = try Self.loggedLines(redact: #"["access_token"]"#, urls: urls)
        #expect(lines.count == urls.count)
        for (line, spelling) in zip(lines, spellings) {
            #expect(!line.contains("TK0038X"), "\(spelling): \(line)")
            #expect(line.contains("keep=1"), "an unlisted parameter is kept: \(line)")
        }
    }
}
