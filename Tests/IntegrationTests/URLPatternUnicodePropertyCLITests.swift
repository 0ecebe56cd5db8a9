import Foundation
import JSONSupport
import Testing

/// Issue 40 on the built binary: `\p{…}` and `\P{…}` in a URL pattern's regexp groups, in
/// `navpolicyd urlpattern exec` and in a config's `urlPatterns`; a misspelled property is a
/// config error that names the pattern (`validate` exits 1, `urlpattern` 2).
struct URLPatternUnicodePropertyCLITests {
    private func json(_ text: String) throws -> JSONValue {
        try JSONParser().parse(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test("urlpattern exec: \\p{L} captures letters, \\P{…} and v-flag classes work, a loose name is an error")
    func exec() throws {
        let match = try BinaryRunner.run([
            "urlpattern", "exec", "--pattern-args", #"[{"pathname":"/wiki/:title(\\p{L}+)"}]"#,
            "--input-args", #"[{"pathname":"/wiki/Zurich"}]"#,
        ])
        #expect(match.status == 0, "\(match.stderr)")
        let object = try #require(try json(match.stdout).objectValue)
        let groups: JSONValue = .object(["title": .string("Zurich")])
        #expect(object["pathname"] == .object(["input": .string("/wiki/Zurich"), "groups": groups]))

        for (pattern, input) in [
            (#"[{"pathname":"/wiki/:title(\\p{L}+)"}]"#, #"[{"pathname":"/wiki/Zurich1"}]"#),
            (#"[{"pathname":"/(\\P{Lu}+)"},{"ignoreCase":true}]"#, #"[{"pathname":"/abc"}]"#),
            (#"[{"pathname":"/([\\p{L}--[a-z]]+)"}]"#, #"[{"pathname":"/abc"}]"#),
        ] {
            let none = try BinaryRunner.run(["urlpattern", "exec", "--pattern-args", pattern, "--input-args", input])
            #expect(none.status == 0, "\(none.stderr)")
            #expect(none.stdout == "null\n", "\(pattern) on \(input): \(none.stdout)")
        }

        let loose = try BinaryRunner.run([
            "urlpattern", "exec", "--pattern-args", #"[{"pathname":"/(\\p{letter}+)"}]"#, "--input-args", #"["/a"]"#,
        ])
        #expect(loose.status == 2, "\(loose.stdout) \(loose.stderr)")
        #expect(loose.stderr.contains("did you mean 'Letter'"), "\(loose.stderr)")
    }

    @Test("a config's urlPatterns decide with \\p{L}; a misspelled property fails validation naming the pattern")
    func config() throws {
        let config = try BinaryRunner.temporaryFile(
            #"""
            {"defaultDecision": "cancel", "handlers": [
              {"name": "articles", "type": "allow",
               "match": {"caseSensitive": true,
                         "urlPatterns": [{"hostname": "wiki.example", "pathname": "/wiki/:title(\\p{Lu}\\p{Ll}+)"}]}},
              {"name": "folded", "type": "allow",
               "match": {"urlPatterns": [{"hostname": "wiki.example", "pathname": "/folded/:title(\\p{Lu}+)"}]}}
            ]}
            """#)
        func decision(_ url: String) throws -> JSONObject? {
            let run = try BinaryRunner.run(["check", "--config", config, url])
            #expect(run.status == 0 || run.status == 1, "\(run.stderr)")
            return try json(run.stdout).objectValue
        }
        #expect(try decision("https://wiki.example/wiki/Zurich")?["handler"] == .string("articles"))
        #expect(try decision("https://wiki.example/wiki/zurich")?["decision"] == .string("cancel"))
        #expect(try decision("https://wiki.example/wiki/Zurich2")?["decision"] == .string("cancel"))
        // Without caseSensitive a pattern matches with ignoreCase (the v flag's vi): \p{Lu} then
        // holds every letter whose fold an uppercase letter's fold is, so "zurich" matches.
        #expect(try decision("https://wiki.example/folded/zurich")?["handler"] == .string("folded"))
        #expect(try decision("https://wiki.example/folded/zurich1")?["decision"] == .string("cancel"))

        let bad = try BinaryRunner.temporaryFile(
            #"""
            {"handlers": [{"name": "a", "type": "cancel",
              "match": {"urlPatterns": [{"pathname": "/wiki/(\\p{Script=latin}+)"}]}}]}
            """#)
        let invalid = try BinaryRunner.run(["validate", "--config", bad])
        #expect(invalid.status == 1, "\(invalid.stdout) \(invalid.stderr)")
        let output = invalid.stdout + invalid.stderr
        #expect(output.contains("/handlers/0/match/urlPatterns/0"), "\(output)")
        #expect(output.contains("did you mean 'Latin'"), "\(output)")
    }
}
