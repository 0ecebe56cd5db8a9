import JSONSupport
import Testing

@testable import NavigationPolicy

/// Issue 26 item 2: what trailing slashes, empty and dot segments mean for `paths`,
/// `pathPrefixes` and `pathPatterns`, pinned by a property: every spelling that a browser or
/// server treats as the same resource gets the same decision, for all three match forms.
@Suite("Path semantics")
struct PathSemanticsTests {
    typealias SeededGenerator = ChainIndexEquivalenceTests.SeededGenerator

    func policy(_ field: String, _ entry: String, caseSensitive: Bool = false) throws -> CompiledPolicy {
        let match: JSONObject = [field: .array([.string(entry)]), "caseSensitive": .bool(caseSensitive)]
        return try PolicyCompiler().compile(
            .object(["handlers": .array([.object(["name": .string("p"), "type": .string("cancel"), "match": .object(match)])])]))
    }

    func handler(_ policy: CompiledPolicy, _ path: String) throws -> String? {
        try decide(policy, "https://a.example" + path).handler
    }

    @Test("a pattern ending in /* matches the directory, with or without its trailing slash, and everything under it")
    func directoryPatterns() throws {
        let admin = try policy("pathPatterns", "/admin/*")
        for path in [
            "/admin/", "/admin//", "/admin/.", "/admin/;x", "/admin/%2e", "/admin/x", "/admin/x/y/", "/admin",
            "/ADMIN/", "/admin;x", "/x/../admin/",
            // An encoded separator has two readings; the decoded one (`/admin/`) cancels (F2).
            "/admin%2F",
        ] {
            #expect(try handler(admin, path) == "p", "\(path)")
        }
        for path in ["/administrator", "/administrator/", "/adminx/", "/x/admin/", "/", "/adminx%2F"] {
            #expect(try handler(admin, path) == nil, "\(path)")
        }
        // With a wildcard before it too: the directory form is the pattern without its last `/*`.
        let deep = try policy("pathPatterns", "/*/secret/*")
        for path in ["/a/secret/", "/a/secret", "/a/b/secret//", "/a/secret/x"] {
            #expect(try handler(deep, path) == "p", "\(path)")
        }
        #expect(try handler(deep, "/secret/") == nil, "the first * needs a segment before /secret")
        // `/*` keeps meaning every path, `/admin*` the prefix by bytes.
        #expect(try handler(try policy("pathPatterns", "/*"), "/") == "p")
        #expect(try handler(try policy("pathPatterns", "/admin*"), "/admin/") == "p")
        // `?` needs a byte: the directory alone does not match `/admin/?`.
        #expect(try handler(try policy("pathPatterns", "/admin/?"), "/admin/") == nil)
        #expect(try handler(try policy("pathPatterns", "/admin/?"), "/admin/x") == "p")
    }

    @Test("paths ignore a trailing slash; pathPrefixes cover the directory and whole segments under it")
    func exactAndPrefix() throws {
        let exact = try policy("paths", "/admin/")
        for path in ["/admin", "/admin/", "/admin//", "/admin/.", "/admin/;x"] {
            #expect(try handler(exact, path) == "p", "\(path)")
        }
        #expect(try handler(exact, "/admin/x") == nil)
        let prefix = try policy("pathPrefixes", "/admin")
        for path in ["/admin", "/admin/", "/admin//", "/admin/.", "/admin/;x", "/admin/x"] {
            #expect(try handler(prefix, path) == "p", "\(path)")
        }
        #expect(try handler(prefix, "/administrator") == nil)
    }

    // MARK: - The property

    static let segments = ["a", "b", "Admin", "c.d", "x-y", "api", "v1", "~u"]

    func pick<T>(_ values: [T], _ rng: inout SeededGenerator) -> T {
        values[Int(rng.next() % UInt64(values.count))]
    }

    /// A random path of 1–4 segments (as its canonical spelling, no trailing slash).
    func randomPath(_ rng: inout SeededGenerator) -> [String] {
        (0..<(1 + Int(rng.next() % 4))).map { _ in pick(Self.segments, &rng) }
    }

    /// A pattern built from a path: some segments replaced or followed by wildcards.
    func randomPattern(_ base: [String], _ rng: inout SeededGenerator) -> String {
        var parts = base.map { segment -> String in
            switch rng.next() % 6 {
            case 0: "*"
            case 1: segment.dropLast() + "?"
            case 2: segment + "*"
            default: segment
            }
        }
        if rng.next() % 3 == 0 { parts = Array(parts.prefix(1 + Int(rng.next() % UInt64(parts.count)))) }
        let tail = pick(["", "/*", "*", "/", "/?*"], &rng)
        return "/" + parts.joined(separator: "/") + tail
    }

    /// Spellings of the same resource as `/segments…` that browsers send or servers fold:
    /// trailing `/`, `//`, `/.`, `/;p`, `/%2e`, `;p` on the last segment, `/./` and `//`
    /// inserted, an `x/..` detour (raw and escaped), escaped unreserved bytes, and (when
    /// case does not matter) other case.
    func spellings(of segments: [String], caseSensitive: Bool, _ rng: inout SeededGenerator) -> [String] {
        let plain = "/" + segments.joined(separator: "/")
        var result = [
            plain, plain + "/", plain + "//", plain + "/.", plain + "/;p", plain + "/%2e", plain + "/%2E", plain + ";p",
            plain + "/./", plain + "/;p/",
        ]
        let cut = Int(rng.next() % UInt64(segments.count + 1))
        let head = segments.prefix(cut).map { "/" + $0 }.joined()
        let rest = segments.dropFirst(cut).map { "/" + $0 }.joined()
        result += [
            head + "/." + rest, head + "/" + rest, head + "/zz/.." + rest, head + "/zz/%2e%2e" + rest,
            head + "/zz/%2E." + rest, head + "/;q" + rest,
        ]
        // Escape every unreserved byte of one segment (`a` → `%61`).
        let escaped = segments.enumerated().map { index, segment in
            index == cut % segments.count
                ? segment.utf8.map { "%" + String($0, radix: 16, uppercase: rng.next() % 2 == 0) }.joined() : segment
        }
        result.append("/" + escaped.joined(separator: "/"))
        if !caseSensitive {
            result.append(plain.uppercased())
            result.append("/" + segments.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: "/") + "/")
        }
        return result
    }

    @Test("every spelling of the same resource matches alike, for paths, pathPrefixes and pathPatterns", arguments: 0..<8)
    func sameResourceMatchesAlike(seed: UInt64) throws {
        var rng = SeededGenerator(state: seed &+ 26)
        for _ in 0..<60 {
            let base = randomPath(&rng)
            let caseSensitive = rng.next() % 4 == 0
            let entry = "/" + base.prefix(1 + Int(rng.next() % UInt64(base.count))).joined(separator: "/")
            let configs = [
                ("paths", entry + pick(["", "/"], &rng)), ("pathPrefixes", entry + pick(["", "/"], &rng)),
                ("pathPatterns", randomPattern(base, &rng)),
            ]
            for (field, written) in configs {
                let compiled = try policy(field, written, caseSensitive: caseSensitive)
                // The resource under test: the entry's own path, the base path, or a sibling.
                for target in [base, Array(base.prefix(1)), base + ["z"], randomPath(&rng)] {
                    let spelled = spellings(of: target, caseSensitive: caseSensitive, &rng)
                    let expected = try handler(compiled, spelled[0])
                    for spelling in spelled.dropFirst() {
                        #expect(
                            try handler(compiled, spelling) == expected,
                            "seed \(seed): \(field) [\"\(written)\"] caseSensitive \(caseSensitive): \(spelling) vs \(spelled[0])"
                        )
                    }
                }
            }
            // The directory rule itself: `X/*` covers X in every spelling.
            let directory = try policy("pathPatterns", entry + "/*", caseSensitive: caseSensitive)
            let segments = entry.split(separator: "/").map(String.init)
            for spelling in spellings(of: segments, caseSensitive: caseSensitive, &rng) {
                #expect(try handler(directory, spelling) == "p", "seed \(seed): \(entry)/* vs \(spelling)")
            }
        }
    }
}
