import Testing

@testable import NavigationPolicy
@testable import PolicyAuthoring

/// Ranges and classes are host conditions to lint, coverage and diff: covered entries are
/// found by containment, and nothing about them crashes or is reported wrongly.
@Suite("Host ranges and classes in lint, coverage and diff")
struct HostClassLintTests {
    static func warnings(_ handlers: String) throws -> [String] {
        PolicyLint.warnings(try compile(#"{"handlers": [\#(handlers)]}"#)).map(\.description)
    }

    @Test("a handler under an earlier class or wider range is unreachable; a wider one after is not")
    func unreachable() throws {
        let covered: [(String, String)] = [
            (#"["@internal"]"#, #"["@loopback"]"#), (#"["@loopback"]"#, #"["127.0.0.1", "[::1]", "localhost"]"#),
            (#"["@loopback"]"#, #"["*.localhost", "0x7f.1"]"#), (#"["10.0.0.0/8"]"#, #"["10.1.0.0/16", "10.2.3.4"]"#),
            (#"["@private"]"#, #"["fd00::/8", "192.168.4.0/24"]"#), (#"["@loopback"]"#, #"["@unspecified"]"#),
            (#"["::/0"]"#, #"["1.2.3.0/24"]"#),
        ]
        for (outer, inner) in covered {
            let found = try Self.warnings(
                #"{"name": "outer", "type": "cancel", "match": {"hosts": \#(outer)}}, {"name": "inner", "type": "cancel", "match": {"hosts": \#(inner)}}"#
            )
            #expect(
                found.contains { $0.hasPrefix("/handlers/1: handler \"inner\" can never decide") },
                "\(outer) ⊇ \(inner): \(found)")
        }
        let notCovered: [(String, String)] = [
            (#"["@loopback"]"#, #"["@internal"]"#), (#"["127.0.0.0/8"]"#, #"["localhost"]"#),
            (#"["10.1.0.0/16"]"#, #"["10.0.0.0/8"]"#), (#"["@private"]"#, #"["127.0.0.1"]"#),
            (#"["@internal"]"#, #"["app.example"]"#), (#"["@loopback"]"#, #"["*.example"]"#),
        ]
        for (outer, inner) in notCovered {
            let found = try Self.warnings(
                #"{"name": "outer", "type": "cancel", "match": {"hosts": \#(outer)}}, {"name": "inner", "type": "cancel", "match": {"hosts": \#(inner)}}"#
            )
            #expect(!found.contains { $0.contains("\"inner\"") }, "\(outer) vs \(inner): \(found)")
        }
    }

    @Test("a range or class written twice is a duplicate entry")
    func duplicates() throws {
        let found = try Self.warnings(
            #"{"name": "x", "type": "cancel", "match": {"hosts": ["@loopback", "10.0.0.0/8", "@loopback", "[::ffff:10.0.0.0]/104"]}}"#
        )
        #expect(
            found == [
                #"/handlers/0/match/hosts/2: "@loopback" repeats hosts[0] (the same after normalization)"#,
                #"/handlers/0/match/hosts/3: "[::ffff:10.0.0.0]/104" repeats hosts[1] (the same after normalization)"#,
            ], "\(found)")
    }

    @Test("coverage counts class and range entries")
    func coverage() throws {
        let policy = try compile(
            #"{"handlers": [{"name": "internal", "type": "cancel", "match": {"hosts": ["@loopback", "10.0.0.0/8"]}}]}"#)
        var coverage = PolicyCoverage(policy: policy)
        #expect(coverage.items.count == 3)
        coverage.record(try policy.decide(NavigationRequest(url: "http://0/"), explain: true))
        let missing = coverage.items.filter { !$0.covered }.map { $0.handler + " " + ($0.entry ?? "") }
        #expect(missing == [#"internal hosts[1] "10.0.0.0/8""#])
    }

    @Test("diff reports what a class changes")
    func diff() throws {
        let old = try compile(
            #"{"handlers": [{"name": "internal", "type": "cancel", "match": {"hosts": ["127.0.0.1", "[::1]", "localhost"]}}]}"#)
        let new = try compile(#"{"handlers": [{"name": "internal", "type": "cancel", "match": {"hosts": ["@loopback"]}}]}"#)
        var diff = PolicyDiff(old: old, new: new)
        for url in ["http://127.0.0.1/", "http://0/", "http://foo.localhost/", "https://app.example/"] {
            diff.add(NavigationRequest(url: url))
        }
        #expect(diff.total == 4)
        #expect(diff.changed == 2)
        #expect(diff.groups.map { "\($0.from) → \($0.to) \($0.count)" } == ["(default) → internal 2"])
    }
}
