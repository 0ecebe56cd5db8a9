import Foundation
import PolicyService
import Testing

/// Issue 28, item 9: what the docs say about the daemon and the command line is what the built
/// binary does. Each test drives the real binary and reads the pages, so a route, a flag or a
/// command added without its doc (or a doc statement left behind) fails here.
@Suite("Docs drift", .serialized)
struct DocsDriftTests {
    static func page(_ path: String) throws -> String {
        try String(contentsOf: BinaryRunner.packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// The paths of docs/api.md's endpoint table (`| methods | `path` | …`), in order.
    static func documentedPaths() throws -> [String] {
        let text = try page("docs/api.md")
        guard let start = text.range(of: "<!-- generated: endpoints"),
            let end = text.range(of: "<!-- end generated: endpoints -->")
        else { return [] }
        return text[start.upperBound..<end.lowerBound].split(separator: "\n").compactMap { row in
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2, cells[1].hasPrefix("`/") else { return nil }
            return String(cells[1].dropFirst().dropLast())
        }
    }

    @Test("docs/api.md's endpoint table lists exactly the routes the running daemon serves")
    func endpointTableMatchesTheDaemon() throws {
        let daemon = try DaemonProcess(configPath: "config/navpolicy.json")
        // The 404 detail lists every route template the daemon registered, in table order.
        let notFound = try Curl.request(daemon.baseURL + "/no-such-endpoint")
        #expect(notFound.status == 404)
        let detail = try #require(notFound.json?["detail"] as? String)
        let listed = try #require(detail.split(separator: ": ", maxSplits: 1).last)
            .split(separator: ", ").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ". ")) }
        #expect(try Self.documentedPaths() == listed, "api.md table vs the daemon's routes")
        // Every documented method of every literal route is routed (never 404 or 405).
        for path in try Self.documentedPaths() where !path.contains("{") {
            let head = try Curl.request(daemon.baseURL + path, ["-o", "/dev/null", "-X", "OPTIONS"])
            #expect(head.status != 404, "\(path) is documented but not served")
        }
    }

    @Test("serve --help names every route the daemon serves")
    func serveHelpListsEveryRoute() throws {
        let help = try BinaryRunner.run(["serve", "--help"])
        #expect(help.status == 0)
        for route in RouteDeclaration.all {
            #expect(help.stdout.contains("\n  \(route.path) "), "serve --help lacks \(route.path)")
        }
        for path in try Self.documentedPaths() {
            #expect(help.stdout.contains("  \(path) "), "serve --help lacks documented \(path)")
        }
    }

    @Test("docs/cli.md's synopsis has every command and every flag of the binary's --help")
    func cliSynopsisMatchesTheBinary() throws {
        let text = try Self.page("docs/cli.md")
        let start = try #require(text.range(of: "<!-- generated: synopsis"))
        let end = try #require(text.range(of: "<!-- end generated: synopsis -->"))
        let synopsis = String(text[start.upperBound..<end.lowerBound])
        let overview = try BinaryRunner.run(["--help"]).stdout
        let commandLines = overview.components(separatedBy: "Commands:\n").last?.components(separatedBy: "\n\n").first ?? ""
        let commands = commandLines.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }
        #expect(commands.contains("intake") && commands.contains("serve"))
        for command in commands {
            #expect(synopsis.contains("navpolicyd \(command)"), "cli.md synopsis lacks \(command)")
            let usage = try BinaryRunner.run([command, "--help"]).stdout.components(separatedBy: "\n\n").first ?? ""
            let flags = usage.split(whereSeparator: { " []()|\n".contains($0) }).filter { $0.hasPrefix("--") && $0.count > 2 }
            for flag in flags {
                #expect(synopsis.contains(flag), "cli.md synopsis lacks \(command) \(flag)")
            }
        }
        #expect(synopsis.contains("--admin-listen") && synopsis.contains("--max-config-bytes"))
    }

    @Test("a request the HTTP layer rejects is counted under endpoint=\"rejected\", as api.md says")
    func rejectedRequestsAreCountedAsDocumented() throws {
        let api = try Self.page("docs/api.md")
        let counted = "close the connection and are counted in `navpolicyd_http_requests_total` under\n"
        #expect(api.contains(counted + "`endpoint=\"rejected\"`"))
        #expect(!api.contains("close the connection and are not counted in the request metrics"))
        let daemon = try DaemonProcess(configPath: "config/navpolicy.json")
        let connection = try RawConnection(port: daemon.port)
        connection.send("GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n")
        #expect(connection.receiveResponse().status == 400)
        let metrics = try Curl.request(daemon.baseURL + "/metrics").body
        #expect(metrics.contains(#"navpolicyd_http_requests_total{endpoint="rejected",code="400"} 1"#))
    }

    @Test("the stale statements of issue 28 stay fixed")
    func staleStatementsStayFixed() throws {
        #expect(!(try Self.page("docs/cli.md")).contains("`decisionLog` in `server`"))
        #expect(!(try Self.page("docs/intake.md")).contains("as `/v1/decide` does"))
        let deploy = try Self.page("deploy/README.md")
        #expect(!deploy.contains("is future work") && deploy.contains("`libpq5`"))
        #expect(try Self.page("deploy/systemd/navpolicyd.service").contains("connectionLimit defaults to 4096"))
        let operations = try Self.page("docs/operations.md")
        #expect(!operations.contains("is also reported as `cannot start on ADDRESS: …`"))
        #expect(operations.contains("`/v1/status`, `/`, `/status` | no (404) | yes |"))
        // README says how to pick the port, with the variable the Makefile reads.
        let makefile = try Self.page("Makefile")
        #expect(makefile.contains("LISTEN ?= 127.0.0.1:8080") && makefile.contains("--listen $(LISTEN)"))
        #expect(try Self.page("README.md").contains("make run LISTEN=127.0.0.1:9090"))
    }

    @Test("every console example of README.md and docs/ runs, or its opt-out says why")
    func everyConsoleBlockRunsOrSaysWhy() throws {
        var skipped: [String] = []
        var examples = 0
        for document in ExecutedDocsTests.documents {
            let parsed = try ExecutedDocs.parse(try Self.page(document))
            examples += parsed.examples.count
            skipped += parsed.skipped.map { "\(document):\($0.line): \($0.reason)" }
        }
        #expect(examples >= 110, "\(examples) examples")
        // Opting out is the exception: a new one is a decision to review, not a way around drift.
        #expect(skipped.count <= 10, "\(skipped.joined(separator: "\n"))")
        #expect(skipped.allSatisfy { $0.split(separator: ":", maxSplits: 2).last.map { $0.count > 20 } ?? false })
    }
}
