import JSONSupport
import TestSelection
import Testing

@testable import NavigationPolicy

/// Issue 33 item 3: a JSON config's large `hosts` and `pathPrefixes` lists are streamed into
/// flat columns and stored as sorted key tables. These pin that nothing a user sees changes:
/// host forms, decisions and traces, issues and their pointers.
@Suite("Large config load", .tags(.volume))
struct LargeConfigLoadTests {
    /// An image's threshold, so the generated lists (tens to hundreds of entries) become tables.
    static let tables = PolicyCompiler().storingLargeListsAsTables(threshold: PolicyImage.defaultTableThreshold)

    /// Host entries of every form: canonical, upper case, IDNA, punycode, IPv4 and IPv6 spellings,
    /// trailing and empty dots, wildcards, numbers at the end, bytes the host parser refuses.
    static func hostMix(_ count: Int, seed: UInt64) -> [String] {
        var random = GeneratedChain.Generator(state: seed)
        return (0..<count).map { _ in hostForm(random.next(30), random.next(500)) }
    }

    /// Form `form` (0..<30) of a host entry, numbered `number`.
    static func hostForm(_ form: Int, _ number: Int) -> String {
        let byte = number % 256
        switch form {
        case 0: return "site\(number).example"
        case 1: return "Site\(number).Example.COM"
        case 2: return "site\(number).example."
        case 3: return "*.zone\(number).example"
        case 4: return "*.Zone\(number).EXAMPLE."
        case 5: return "bücher\(number).test"
        case 6: return "xn--bcher\(number)-kva.test"
        case 7: return "10.0.\(byte).1"
        case 8: return "0x7f.\(byte)"
        case 9: return "\(byte).1"
        case 10: return "[::ffff:127.0.0.\(byte)]"
        case 11: return "::\(number)"
        case 12: return "a_b-\(number).test"
        case 13: return "host\(number).123"
        case 14: return "a..b\(number).test"
        case 15: return "\(number).test"
        case 16: return "*.\(number)"
        case 17: return "a%41\(number).test"
        case 18: return "ex\(number).com:80"
        case 19: return "*.*.w\(number).test"
        case 20: return ["*.", ".", "..", "*"][number % 4]
        case 21: return "-lead\(number).test"
        case 22: return "e\u{301}\(number).test"
        case 23: return "10.\(byte).0.0/16"
        case 24: return ["@loopback", "@internal", "@private"][number % 3]
        case 25: return "ＦＵＬＬ\(number).test"
        case 26: return "site\(number).EXAMPLE"
        case 27: return "sïte\(number).example."
        case 28: return "*.site\(number).example.."
        default: return "SITE\(number).example"
        }
    }

    @Test("the plain-name fast path gives what the full host parser gives, for every form")
    func fastHostPathAgreesWithParser() {
        for pattern in Self.hostMix(5000, seed: 33) + ["example.com", "a", "a.", "*.a", "*.a.", "_", "-"] {
            let fast = HostPattern.parse(pattern)
            let full = HostPattern.parseThroughHostParser(pattern)
            switch (fast, full) {
            case (.success(let left), .success(let right)): #expect(left == right, "\(pattern)")
            case (.failure(let left), .failure(let right)): #expect(left.reason == right.reason, "\(pattern)")
            default: Issue.record("\(pattern): fast \(fast), full \(full)")
            }
        }
    }

    /// A config with one handler per entry list (`hosts`, then `pathPrefixes`), valid entries only.
    static func config(hosts: [String], prefixes: [String], caseSensitive: Bool = false) -> String {
        let valid = hosts.filter { pattern in
            (try? PolicyCompiler().compile(
                Array(#"{"handlers":[{"name":"x","type":"cancel","match":{"hosts":[\#(quoted(pattern))]}}]}"#.utf8))) != nil
        }
        let hostList = valid.map(quoted).joined(separator: ",")
        let prefixList = prefixes.map(quoted).joined(separator: ",")
        return #"""
            {"handlers":[
              {"name":"hosts","type":"cancel","match":{"hosts":[\#(hostList)]}},
              {"name":"prefixes","type":"logout","match":{"caseSensitive":\#(caseSensitive),"pathPrefixes":[\#(prefixList)]}},
              {"name":"both","type":"about","match":{"hosts":[\#(hostList)],"pathPrefixes":[\#(prefixList)]}}
            ]}
            """#
    }

    static func quoted(_ text: String) -> String { JSONValue.string(text).serialized }

    @Test("tables and per-entry sets decide identically, traces included", arguments: [false, true])
    func tablesDecideAsEntries(caseSensitive: Bool) throws {
        var random = GeneratedChain.Generator(state: 7)
        let hosts = Self.hostMix(600, seed: 5)
        let prefixes = (0..<300).map { index in
            ["/s\(index)/private", "/S\(index)/Mixed/", "/p/%41\(index)", "/a/./b\(index)", "/ü\(index)", "/x\(index)//y"][
                random.next(6)]
        }
        let json = Self.config(hosts: hosts, prefixes: prefixes, caseSensitive: caseSensitive)
        let entries = try PolicyCompiler().compile(Array(json.utf8))
        let tabled = try Self.tables.compile(Array(json.utf8))
        #expect(tabled.links.allSatisfy { $0.matcher.hosts?.mapped != nil || $0.matcher.paths.mappedPrefixes != nil })
        for index in 0..<3000 {
            let host = Self.requestHost(random.next(11), random.next(500))
            let path = ["/s\(random.next(300))/private/x", "/S\(random.next(300))/mixed", "/p/A\(random.next(300))", "/b", "/"][
                random.next(5)]
            let request = NavigationRequest(url: "https://\(host)\(path)")
            #expect(try tabled.decide(request) == entries.decide(request), "\(index) \(request.url)")
            #expect(try tabled.decide(request, explain: true) == entries.decide(request, explain: true), "\(request.url)")
        }
    }

    static func requestHost(_ form: Int, _ number: Int) -> String {
        switch form {
        case 0: "site\(number).example"
        case 1: "a.zone\(number).example"
        case 2: "zone\(number).example"
        case 3: "xn--bcher\(number)-kva.test"
        case 4: "10.0.\(number % 256).1"
        case 5: "127.0.0.\(number % 256)"
        case 6: "[::ffff:127.0.0.\(number % 256)]"
        case 7: "SITE\(number).EXAMPLE."
        case 8: "a_b-\(number).test"
        case 9: "nothing\(number).test"
        default: "b.a.zone\(number).example"
        }
    }

    @Test("generated chains of every match form decide identically with and without tables", arguments: [UInt64(11), 12])
    func generatedChains(seed: UInt64) throws {
        let json = GeneratedChain.config(handlers: 60, seed: seed, longList: 90)
        let entries = try PolicyCompiler().compile(Array(json.utf8))
        let tabled = try Self.tables.compile(Array(json.utf8))
        var random = GeneratedChain.Generator(state: seed &* 31)
        for _ in 0..<1500 {
            let request = GeneratedChain.request(&random)
            #expect(try tabled.decide(request, explain: true) == entries.decide(request, explain: true), "\(request.url)")
        }
    }

    @Test("an error deep in a large list points at its entry, in both storages")
    func errorsInLargeFilesPointAtTheEntry() {
        var hosts = (0..<200_000).map { "\"site\($0).example\"" }
        hosts[123_457] = "\"bad host.example\""
        hosts[199_999] = "\"https://x.example/\""
        var prefixes = (0..<100_000).map { "\"/section\($0)/private\"" }
        prefixes[99_998] = "\"section/no-slash\""
        let json = #"""
            {"handlers":[{"name":"a","type":"allow","match":{"paths":["/a"]}},
            {"name":"b","type":"cancel","match":{"hosts":[\#(hosts.joined(separator: ","))]}},
            {"name":"c","type":"cancel","match":{"pathPrefixes":[\#(prefixes.joined(separator: ","))],"hosts":[1,"x.example",[]]}}]}
            """#
        let bytes = Array(json.utf8)
        let expected = [
            #"/handlers/1/match/hosts/123457: "bad host.example": invalid host: "#,
            #"/handlers/1/match/hosts/199999: "https://x.example/": a host pattern is a bare host name, not a URL"#,
            // `hosts` is decoded before `pathPrefixes` whatever their order in the object, as before.
            "/handlers/2/match/hosts/0: expected a string, got a number",
            "/handlers/2/match/hosts/2: expected a string, got an array",
            #"/handlers/2/match/pathPrefixes/99998: "section/no-slash": a path must start with "/""#,
        ]
        for compiler in [PolicyCompiler(), Self.tables] {
            let issues = compileIssues { () throws(ConfigError) in try compiler.compile(bytes) }
            #expect(issues.count == expected.count, "\(issues)")
            for (issue, prefix) in zip(issues, expected) { #expect(issue.hasPrefix(prefix), "\(issue)") }
            #expect(issues == treeIssues(bytes, compiler), "streamed and parsed documents report the same")
        }
    }

    /// Lists that the stream reads into columns, in every shape the tree would report on.
    static let listConfigs: [String] = [
        #"{"handlers":[{"name":"a","type":"cancel","match":{"hosts":[],"pathPrefixes":[]}}]}"#,
        #"{"handlers":[{"name":"a","type":"cancel","match":{"hosts":["a.example"],"hosts":["b.example"]}}]}"#,
        #"{"handlers":[{"name":"a","type":"cancel","match":{"hosts":"a.example","hosts":["b.example"]}}]}"#,
        #"{"handlers":[{"name":"a","type":"cancel","match":{"hosts":["\u0041.example","a\"b",null,{}]}}]}"#,
        #"{"handlers":[{"name":"a","type":"cancel","match":{"hosts":["a.example"]},"match":{"hosts":[5]}}]}"#,
        #"{"handlers":[{"name":"a","type":"cancel","match":{"pathPrefixes":["/a","b",true],"hosts":["a.example"]}}]}"#,
        #"{"handlers":[{"name":"a","type":"cancel","match":{"hosts":["a.example",]}}]}"#,
        #"{"handlers":[{"name":"a","type":"cancel","match":{"hosts":["a.example" "b"]}}]}"#,
        #"{"handlers":[{"name":"a","type":"cancel","match":{"hosts":["a\u00"]}}]}"#,
        "{\"handlers\":[{\"name\":\"a\",\"type\":\"cancel\",\"match\":{\"hosts\":[\"a\u{1}b\"]}}]}",
        #"{"handlers":[{"name":"a","type":"cancel","match":{"hosts":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}}]}"#,
        #"{"handlers":[{"name":"a","type":"cancel","match":{"hosts":[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]}}]}"#,
        #"{"handlers":[{"name":"a","type":"cancel","match":{"hots":["a.example"],"hosts":["(.*\\.)?a\\.example$"]}}]}"#,
    ]

    @Test("streamed lists report exactly what the parsed document reports", arguments: listConfigs)
    func streamedListsReportAsTheTree(config: String) {
        let bytes = Array(config.utf8)
        for compiler in [PolicyCompiler(), Self.tables] {
            let streamed = compileIssues { () throws(ConfigError) in try compiler.compile(bytes) }
            #expect(streamed == treeIssues(bytes, compiler))
            #expect(!streamed.isEmpty)
        }
    }

    private func treeIssues(_ bytes: [UInt8], _ compiler: PolicyCompiler) -> [String] {
        do {
            let document = try JSONParser(maximumDepth: 32, rejectsDuplicateMembers: false).parse(bytes)
            return compileIssues { () throws(ConfigError) in try compiler.compile(document) }
        } catch {
            return [ConfigIssue(pointer: .root, message: JSONSlipHint.describe(error, in: bytes)).description]
        }
    }

    @Test("the table builder sorts, keeps the first of repeated keys, and records written forms")
    func tableBuilder() throws {
        var builder = SortedKeyTableBuilder()
        for (index, key) in ["b", "a", "ab", "b", "a\u{0}", ""].enumerated() {
            builder.add(Array(key.utf8), configIndex: index, written: index == 3 ? "B" : nil)
        }
        let table = try builder.build()
        #expect(table.count == 5)
        #expect((0..<table.count).map(table.keyText) == ["", "a", "a\u{0}", "ab", "b"])
        #expect(table.position(of: "b").map(table.configIndex) == 0, "the first listing is kept")
        #expect(table.position(of: "b").flatMap(table.writtenText) == nil)
        #expect(table.contains("ab") && !table.contains("abc"))
    }
}
