import Foundation
import Testing

/// The CLI contract, checked from outside: output bytes and exit statuses.
@Suite("navpolicyd CLI")
struct CLITests {
    @Test("check prints exactly the decision object, exit 0")
    func checkDecision() throws {
        let result = try BinaryRunner.run(["check", "https://app.example.com/%6Cogout"])
        #expect(result.status == 0)
        #expect(
            result.stdout
                == #"{"decision":"cancel","handler":"logout","action":"logout","location":null,"url":"https://app.example.com/%6Cogout"}"#
                + "\n")
        let pay = try BinaryRunner.run(["check", "--", "https://PAY.example.com/c?x=1"])
        #expect(
            pay.stdout
                == #"{"decision":"cancel","handler":"payment","action":"open-external","location":"https://checkout.example.com/open?target=https%3A%2F%2Fpay.example.com%2Fc%3Fx%3D1","url":"https://pay.example.com/c?x=1"}"#
                + "\n")
        let allow = try BinaryRunner.run(["check", "javascript:alert(1)"])
        #expect(allow.status == 0)
        #expect(
            allow.stdout.hasPrefix(
                #"{"decision":"allow","handler":null,"action":null,"location":null,"url":"javascript:alert(1)"}"#))
    }

    @Test("check flags set the request fields")
    func checkFlags() throws {
        let config = try BinaryRunner.temporaryFile(
            #"{"handlers":[{"name":"sub-form","type":"cancel","match":{"methods":["POST"],"navigationTypes":["formSubmitted"],"targetFrames":["sub"]}}]}"#
        )
        let hit = try BinaryRunner.run([
            "check", "--config", config, "--method", "post", "--navigation-type=formSubmitted", "--target-frame", "sub",
            "--source-url", "https://a.example/", "https://b.example/",
        ])
        #expect(hit.status == 0)
        #expect(hit.stdout.contains(#""handler":"sub-form""#))
        let miss = try BinaryRunner.run(["check", "--config", config, "--method", "POST", "https://b.example/"])
        #expect(miss.stdout.contains(#""decision":"allow""#))
        let explained = try BinaryRunner.run(["check", "--config", config, "--explain", "https://b.example/"])
        #expect(explained.stdout.contains(#""trace":[{"handler":"sub-form","type":"cancel","result":"passed""#))
    }

    @Test(
        "check rejects bad input with a message and exit 2",
        arguments: [
            (["check", "http://[::1"], "URL: not a valid URL"),
            (["check", "--navigation-type", "click", "https://a.example/"], "--navigation-type: unknown value \"click\""),
            (["check", "--target-frame", "top", "https://a.example/"], "--target-frame: unknown value \"top\""),
            (["check", "--method", "G T", "https://a.example/"], "--method:"),
            (["check", "--source-url", "nope", "https://a.example/"], "--source-url: not a valid URL"),
            (["check"], "missing the URL"),
            (["check", "a", "b"], "expected one URL"),
            (["check", "--bogus", "https://a.example/"], "unknown option '--bogus'"),
            (["check", "--config"], "needs a value"),
            (["check", "--config", "/nonexistent/x.json", "https://a.example/"], "no such file"),
            (["frobnicate"], "unknown command"),
            ([], "Usage: navpolicyd"),
        ])
    func checkErrors(arguments: [String], message: String) throws {
        let result = try BinaryRunner.run(arguments)
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test("configs over --max-config-bytes (or NAVPOLICY_MAX_CONFIG_BYTES) are refused with exit 2 by every command")
    func configSizeCap() throws {
        let config = try BinaryRunner.temporaryFile(
            #"{"handlers":[{"name":"a","type":"cancel","match":{"hosts":["a.example"]}}]}"#)
        let size = try #require(FileManager.default.attributesOfItem(atPath: config)[.size] as? Int)
        let tooLarge = "is larger than the limit of \(size - 1) bytes"
        let commands: [[String]] = [
            ["check", "--config", config, "https://a.example/"], ["validate", "--config", config],
            ["diff", "--config", config, "--against", config, "--urls", config],
            ["serve", "--config", config, "--listen", "127.0.0.1:0"],
        ]
        for command in commands {
            let refused = try BinaryRunner.run(command + ["--max-config-bytes", "\(size - 1)"])
            #expect(refused.status == 2, "\(command)")
            #expect(refused.stderr.contains(tooLarge), "\(command): \(refused.stderr)")
        }
        let fromEnvironment = try BinaryRunner.run(
            ["check", "--config", config, "https://a.example/"], environment: ["NAVPOLICY_MAX_CONFIG_BYTES": "\(size - 1)"])
        #expect(fromEnvironment.status == 2)
        #expect(fromEnvironment.stderr.contains(tooLarge))
        let atLimit = try BinaryRunner.run(["check", "--config", config, "--max-config-bytes", "\(size)", "https://a.example/"])
        #expect(atLimit.status == 0)
        #expect(atLimit.stdout.contains(#""decision":"cancel""#))
        let bad = try BinaryRunner.run(["validate", "--config", config, "--max-config-bytes", "0"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--max-config-bytes 0: expected a positive number of bytes"))
    }

    @Test("an invalid config makes check exit 2 and lists every error")
    func checkInvalidConfig() throws {
        let config = try BinaryRunner.temporaryFile(
            #"{"handlers":[{"name":"x","type":"nope"},{"name":"y","type":"cancel","match":{"hosts":["*."]}}]}"#)
        let result = try BinaryRunner.run(["check", "--config", config, "https://a.example/"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("/handlers/0/type: unknown handler type \"nope\""))
        #expect(result.stderr.contains(#"/handlers/1/match/hosts/0: "*.": empty host pattern"#))
    }

    @Test("NAVPOLICY_CONFIG is the default; --config overrides it")
    func configResolution() throws {
        let blockAll = try BinaryRunner.temporaryFile(#"{"defaultDecision":"cancel"}"#)
        let viaEnv = try BinaryRunner.run(["check", "https://a.example/"], environment: ["NAVPOLICY_CONFIG": blockAll])
        #expect(viaEnv.stdout.contains(#""decision":"cancel","handler":null,"action":"block""#))
        let viaFlag = try BinaryRunner.run(
            ["check", "--config", "config/navpolicy.json", "https://a.example/"], environment: ["NAVPOLICY_CONFIG": blockAll])
        #expect(viaFlag.stdout.contains(#""decision":"allow""#))
    }

    @Test("validate prints the chain in order, or every error with exit 1")
    func validate() throws {
        let ok = try BinaryRunner.run(["validate"])
        #expect(ok.status == 0)
        // Chain lines are numbered; warnings and effective settings follow them.
        let handlerLines = ok.lines.filter { $0.hasPrefix("  ") && $0.dropFirst(2).first?.isNumber == true }
        #expect(handlerLines.count == 3)
        #expect(handlerLines[0].contains("1. logout") && handlerLines[0].contains("paths=/logout,/sign_out"))
        #expect(handlerLines[1].contains("2. about"))
        #expect(handlerLines[2].contains("3. payment") && handlerLines[2].contains("payment-redirect"))

        let bad = try BinaryRunner.temporaryFile(
            #"{"defaultDecision":"maybe","handlers":[{"name":"a","type":"allow","match":{"paths":[]}}]}"#)
        let result = try BinaryRunner.run(["validate", "--config", bad])
        #expect(result.status == 1)
        #expect(result.stderr.contains(#"/defaultDecision: "maybe": expected "allow" or "cancel""#))
        #expect(result.stderr.contains("/handlers/0/match/paths: empty list"))
        #expect(try BinaryRunner.run(["validate", "--config", "/nonexistent.json"]).status == 2)
    }

    @Test("test runs the shipped cases green and reports failures with expected vs actual")
    func tableTests() throws {
        let shipped = try BinaryRunner.run(["test", "config/navpolicy.tests.json"])
        #expect(shipped.status == 0, "\(shipped.stdout)")
        #expect(shipped.lines.last(where: { !$0.isEmpty })?.hasSuffix(" passed, 0 failed") == true)

        let cases = try BinaryRunner.temporaryFile(
            """
            [{"url": "https://a.example/logout", "expect": {"decision": "cancel", "handler": "logout"}},
             {"url": "https://a.example/about", "name": "wrong on purpose", "expect": {"decision": "allow", "handler": null}},
             {"url": "https://pay.example.com/", "expect": {"decision": "cancel", "location": null}}]
            """)
        let result = try BinaryRunner.run(["test", cases])
        #expect(result.status == 1)
        #expect(result.stdout.contains("FAIL wrong on purpose: https://a.example/about"))
        #expect(result.stdout.contains(#"decision: expected "allow", got "cancel""#))
        #expect(result.stdout.contains(#"handler: expected null, got "about""#))
        #expect(result.stdout.contains(#"location: expected null, got "https://checkout.example.com/open?target="#))
        #expect(result.lines.last(where: { !$0.isEmpty }) == "1 passed, 2 failed")
    }

    @Test("test rejects a malformed cases file with pointers, exit 2")
    func malformedCases() throws {
        let cases = try BinaryRunner.temporaryFile(
            #"[{"url": "https://a.example/"}, {"url": "x", "navigationType": "click", "expect": {"decision": "allow"}}, {"url": "https://a.example/", "expect": {"decision": "nope", "handlr": 1}}]"#
        )
        let result = try BinaryRunner.run(["test", cases])
        #expect(result.status == 2)
        #expect(result.stderr.contains("/0/expect: required field is missing"))
        #expect(result.stderr.contains("/1/navigationType: unknown value \"click\""))
        #expect(result.stderr.contains("/2/expect/handlr: unknown field"))
        #expect(try BinaryRunner.run(["test", "/nonexistent.json"]).status == 2)
        #expect(try BinaryRunner.run(["test"]).status == 2)
    }

    @Test("--help works for the tool and every subcommand")
    func help() throws {
        let top = try BinaryRunner.run(["--help"])
        #expect(top.status == 0)
        for command in ["check", "validate", "test", "canonicalize"] {
            #expect(top.stdout.contains("  \(command)"))
            let sub = try BinaryRunner.run([command, "--help"])
            #expect(sub.status == 0)
            #expect(sub.stdout.contains("Usage: navpolicyd \(command)"))
            #expect(try BinaryRunner.run(["help", command]).stdout == sub.stdout)
        }
    }

    @Test("canonicalize shows the match forms; --ndjson is line-for-line")
    func canonicalize() throws {
        let shown = try BinaryRunner.run(["canonicalize", "HTTPS://Pay.Example.COM.//a/%6Cogout;x"])
        #expect(
            shown.stdout
                == #"{"input":"HTTPS://Pay.Example.COM.//a/%6Cogout;x","href":"https://pay.example.com.//a/%6Cogout;x","scheme":"https","matchHost":"pay.example.com","matchPath":"/a/logout"}"#
                + "\n")
        let lines = try BinaryRunner.run(["canonicalize", "--ndjson"], stdin: "\"http://0x7f.1/\"\n\"http://[::1\"\nnot json\n")
        #expect(
            lines.lines.prefix(3) == [
                #"{"input":"http://0x7f.1/","href":"http://127.0.0.1/"}"#,
                #"{"input":"http://[::1","error":"invalid IPv6 address"}"#,
                #"{"error":"input line is not a JSON string"}"#,
            ])
    }

    @Test(
        "hostile arguments never crash the binary",
        arguments: [
            "http://" + String(repeating: "a.", count: 5000), "http://[" + String(repeating: ":", count: 100) + "]",
            "http://%FF%FE/", "http://xn--/", "\u{FEFF}https://a/", String(repeating: "%", count: 10_000),
        ])
    func hostileArguments(url: String) throws {
        let result = try BinaryRunner.run(["check", "--", url])
        #expect(result.status == 0 || result.status == 2, "status \(result.status): \(result.stderr)")
    }
}
