import Foundation
import JSONSupport
import Testing

/// `navpolicyd urlpattern exec|test` driven as a user (or a conformance harness) runs it, on
/// entries of the WPT URLPattern data: a match with groups, a null, a constructor error, an
/// exec() error, and arguments that are not JSON.
struct URLPatternCLITests {
    private func exec(_ pattern: String, _ inputs: String, action: String = "exec") throws -> BinaryRunner.Result {
        try BinaryRunner.run(["urlpattern", action, "--pattern-args", pattern, "--input-args", inputs])
    }

    private func json(_ text: String) throws -> JSONValue {
        try JSONParser().parse(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test("exec prints inputs and every component's input and groups (WPT entry 0 and a string pattern)")
    func execMatch() throws {
        let result = try exec(#"[{"pathname":"/foo/bar"}]"#, #"[{"pathname":"/foo/bar"}]"#)
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try json(result.stdout).objectValue)
        #expect(object["inputs"] == .array([.object(["pathname": .string("/foo/bar")])]))
        #expect(object["pathname"] == .object(["input": .string("/foo/bar"), "groups": .object([:])]))
        #expect(object["protocol"] == .object(["input": .string(""), "groups": .object(["0": .string("")])]))
        #expect(object.keys == ["inputs", "protocol", "username", "password", "hostname", "port", "pathname", "search", "hash"])

        let named = try exec(
            #"["https://*.example.com/books/:id"]"#, #"["https://shop.example.com/books/123?x=1"]"#)
        #expect(named.status == 0, "\(named.stderr)")
        let match = try #require(try json(named.stdout).objectValue)
        #expect(match["hostname"] == .object(["input": .string("shop.example.com"), "groups": .object(["0": .string("shop")])]))
        #expect(match["pathname"] == .object(["input": .string("/books/123"), "groups": .object(["id": .string("123")])]))
        #expect(match["search"] == .object(["input": .string("x=1"), "groups": .object(["0": .string("x=1")])]))
    }

    @Test("a group that does not take part is null; a URL that does not match prints null with exit 0")
    func execNullAndUndefinedGroup() throws {
        let optional = try exec(#"[{"pathname":"/foo/:bar?"}]"#, #"[{"pathname":"/foo"}]"#)
        #expect(optional.status == 0, "\(optional.stderr)")
        #expect(
            try json(optional.stdout).objectValue?["pathname"]
                == .object(["input": .string("/foo"), "groups": .object(["bar": .null])]))

        // WPT entry 100: "/foo{/bar}" does not match "/foo/".
        let none = try exec(#"[{"pathname":"/foo{/bar}"}]"#, #"[{"pathname":"/foo/"}]"#)
        #expect(none.status == 0, "\(none.stderr)")
        #expect(none.stdout == "null\n")
    }

    @Test("a constructor error and an exec() error exit 2 with the reason on stderr")
    func errors() throws {
        // WPT entry 288: an escaped ':' cannot be part of a hostname.
        let constructor = try exec(#"[{"hostname":"bad\\:hostname"}]"#, "[]")
        #expect(constructor.status == 2)
        #expect(constructor.stdout.isEmpty)
        #expect(constructor.stderr.contains("hostname"), "\(constructor.stderr)")

        // WPT entry 207: a base URL beside a dictionary input throws.
        let execError = try exec(#"[{"pathname":"/foo/bar"}]"#, #"[{"pathname":"/foo/bar"},"https://example.com"]"#)
        #expect(execError.status == 2)
        #expect(execError.stdout.isEmpty)
        #expect(execError.stderr.contains("exec() throws"), "\(execError.stderr)")

        // A relative pattern string without a base URL throws.
        let relative = try exec(#"["/foo"]"#, "[]")
        #expect(relative.status == 2)
        #expect(relative.stderr.contains("base URL"), "\(relative.stderr)")
    }

    @Test("arguments that are not JSON arrays exit 2 naming the flag")
    func badJSON() throws {
        let notJSON = try exec("[{", "[]")
        #expect(notJSON.status == 2)
        #expect(notJSON.stderr.contains("--pattern-args"), "\(notJSON.stderr)")
        let notArray = try exec(#"[{"pathname":"/a"}]"#, #"{"pathname":"/a"}"#)
        #expect(notArray.status == 2)
        #expect(notArray.stderr.contains("--input-args"), "\(notArray.stderr)")
    }

    @Test("test prints true (exit 0) or false (exit 1); ignoreCase applies to the pathname")
    func testAction() throws {
        let yes = try exec(#"[{"pathname":"/foo/bar"},{"ignoreCase":true}]"#, #"[{"pathname":"/FOO/BAR"}]"#, action: "test")
        #expect(yes.status == 0, "\(yes.stderr)")
        #expect(yes.stdout == "true\n")
        let no = try exec(#"[{"pathname":"/foo/bar"}]"#, #"[{"pathname":"/FOO/BAR"}]"#, action: "test")
        #expect(no.status == 1)
        #expect(no.stdout == "false\n")
    }

    @Test("match.urlPatterns decides through the binary, and the reading that cancels wins")
    func policyURLPatterns() throws {
        let config = try BinaryRunner.temporaryFile(
            #"""
            {"handlers": [
              {"name": "public", "type": "allow", "match": {"urlPatterns": [{"pathname": "/public/*"}]}},
              {"name": "admin", "type": "cancel", "match": {"urlPatterns": ["https://*.example.com/admin{/*}?"]}}
            ], "defaultDecision": "allow"}
            """#)
        func decision(_ url: String) throws -> JSONObject? {
            let run = try BinaryRunner.run(["check", "--config", config, url])
            #expect(run.status == 0 || run.status == 1, "\(run.stderr)")
            return try json(run.stdout).objectValue
        }
        #expect(try decision("https://shop.example.com/admin/users")?["handler"] == .string("admin"))
        #expect(try decision("https://shop.example.com/%61dmin")?["handler"] == .string("admin"))
        #expect(try decision("https://shop.example.com/public/x")?["handler"] == .string("public"))
        // The standard's reading of this path stays under /public/ (the allow matches it), but
        // servers serve /admin/users: the cancelling reading decides.
        let dodge = try decision("https://shop.example.com/public/..;/admin/users")
        #expect(dodge?["decision"] == .string("cancel"))
        #expect(dodge?["handler"] == .string("admin"))

        let bad = try BinaryRunner.temporaryFile(
            #"{"handlers": [{"name": "a", "type": "cancel", "match": {"urlPatterns": ["/admin/*"]}}]}"#)
        let invalid = try BinaryRunner.run(["validate", "--config", bad])
        #expect(invalid.status != 0)
        #expect((invalid.stdout + invalid.stderr).contains("/handlers/0/match/urlPatterns/0: /admin/*: "))
    }
}
