import Foundation
import TestSelection
import Testing

/// Issue 38, item 4: docs/envoy.md's setup, followed word for word, must not fail open. The
/// command of step 1 is read out of the page and run, and it is sent exactly what the shipped
/// HTTP bootstrap makes Envoy send (its `path_prefix` read out of the file): the two are
/// checked against each other, so neither can change alone.
@Suite("docs/envoy.md's command against the shipped Envoy bootstrap (live)", .serialized, .tags(.live))
struct EnvoyGuideLiveTests {
    static func page(_ path: String) throws -> String {
        try String(contentsOf: BinaryRunner.packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// The arguments after `navpolicyd serve` in the `sh` block of step 1 of "Setting it up".
    static func documentedServeArguments() throws -> [String] {
        let guide = try page("docs/envoy.md")
        let step = try #require(guide.range(of: "1. Run navpolicyd with the service beside its API"), "step 1 is gone")
        let block = try #require(guide.range(of: "```sh\n", range: step.upperBound..<guide.endIndex))
        let end = try #require(guide.range(of: "```", range: block.upperBound..<guide.endIndex))
        let command = guide[block.upperBound..<end.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
        let words = command.split(whereSeparator: \.isWhitespace).map(String.init)
        #expect(Array(words.prefix(2)) == ["navpolicyd", "serve"], "\(command)")
        return Array(words.dropFirst(2))
    }

    /// The value of `key:` in a shipped bootstrap (one line, as the files write it).
    static func bootstrapValue(_ key: String, in file: String) throws -> String? {
        let text = try page(file)
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix(key + ":") else { continue }
            return trimmed.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    @Test(
        "the documented command, sent what Envoy sends with the shipped path_prefix: /logout is cancelled, nothing is decided with the prefix in front"
    )
    func documentedCommandAgainstShippedBootstrap() throws {
        var arguments = try Self.documentedServeArguments()
        // The daemon under test picks its own API port and config path (DaemonProcess adds
        // them); every other address is made a free port, the rest is run as written.
        var configPath = ""
        var run: [String] = []
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            let value = index + 1 < arguments.count ? arguments[index + 1] : ""
            switch word {
            case "--config": configPath = value
            case "--listen": break
            case "--ext-authz-listen", "--ext-authz-grpc-listen", "--admin-listen", "--proxy-listen":
                run += [word, "127.0.0.1:0"]
            default:
                run.append(word)
                index += 1
                continue
            }
            index += 2
        }
        arguments = run
        #expect(arguments.contains("--ext-authz-listen"), "step 1 no longer runs the HTTP service: \(arguments)")
        let prefix = try #require(
            try Self.bootstrapValue("path_prefix", in: "deploy/envoy/envoy-ext-authz-http.yaml"), "no path_prefix")
        try #require(!configPath.isEmpty, "step 1 names no --config: \(arguments)")
        let daemon = try DaemonProcess(configPath: configPath, arguments: arguments)
        let port = try #require(daemon.loggedPort("ext_authz.listening"), "no ext_authz.listening line")

        func check(_ path: String) throws -> Curl.Response {
            // Envoy's HTTP authorization client: path_prefix + the original path, the original Host.
            let connection = try RawConnection(port: port)
            connection.send(
                "GET \(path) HTTP/1.1\r\nhost: app.example.com\r\nx-forwarded-proto: https\r\n"
                    + "content-length: 0\r\nconnection: close\r\n\r\n")
            return connection.receiveResponse()
        }
        let logout = try check(prefix + "/logout")
        #expect(logout.status == 403, "\(prefix)/logout: \(logout.status) \(logout.body)")
        #expect(logout.headers["x-navigation-handler"] == "logout")
        let decision = logout.json?["decision"] as? [String: Any]
        #expect(decision?["url"] as? String == "https://app.example.com/logout")
        #expect(try check(prefix + "/welcome").status == 200)
        // What the prefix cannot have produced is refused, never decided.
        for path in ["/logout", prefix, prefix + "logout", "/welcome"] where !prefix.isEmpty {
            let refused = try check(path)
            #expect(refused.status == 400, "\(path): \(refused.status)")
            #expect(refused.headers["x-navigation-decision"] == nil, "\(path) was decided")
        }
    }

    @Test("both shipped bootstraps strip the client's Host port before routing and the check")
    func bootstrapsStripTheHostPort() throws {
        for file in ["deploy/envoy/envoy-ext-authz-http.yaml", "deploy/envoy/envoy-ext-authz-grpc.yaml"] {
            #expect(try Self.bootstrapValue("strip_any_host_port", in: file) == "true", "\(file)")
        }
    }

    @Test("--ext-authz-path-prefix wins over extAuthz.pathPrefix, as the listen flags win over theirs")
    func flagWinsOverTheSection() throws {
        let config = ExtAuthzHTTPLiveTests.config.replacingOccurrences(of: #""/authz""#, with: #""/other""#)
        let service = try ExtAuthzHTTPLiveTests.Service(config: config, arguments: ["--ext-authz-path-prefix", "/authz"])
        let logout = try service.check(path: "/authz/logout")
        #expect(logout.status == 403 && logout.headers["x-navigation-handler"] == "logout", "\(logout.body)")
        let other = try service.check(path: "/other/logout")
        #expect(other.status == 400 && other.headers["x-navigation-decision"] == nil, "\(other.body)")
    }

    @Test("serve refuses a path prefix Envoy cannot send (exit 2, the flag named)")
    func badPrefixFlag() throws {
        for bad in ["authz", "/authz/", "/a?b"] {
            let result = try BinaryRunner.run(["serve", "--ext-authz-path-prefix", bad, "--listen", "127.0.0.1:0"])
            #expect(result.status == 2, "\(bad): \(result.status)")
            #expect(result.stderr.contains("--ext-authz-path-prefix"), "\(bad): \(result.stderr)")
        }
    }
}
