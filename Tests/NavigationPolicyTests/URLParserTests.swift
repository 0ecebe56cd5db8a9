import Foundation
import Testing

@testable import NavigationPolicy
@testable import URLStandard

/// Targeted tests for the URL parser beyond the WPT corpus: error reasons, host forms,
/// percent-encode set definitions, thread safety and trap-freedom on hostile input.
struct URLParserTests {
    @Test func typicalURLComponents() throws {
        let url = try URLRecord.parse("HTTPS://User:P%40ss@WWW.Example.COM:443/a/./b/../c?x=1&y='#frag")
        #expect(url.scheme == "https")
        #expect(url.username == "User")
        #expect(url.password == "P%40ss")
        #expect(url.host == .domain("www.example.com"))
        #expect(url.port == nil)
        #expect(url.path == .segments(["a", "c"]))
        #expect(url.query == "x=1&y=%27")
        #expect(url.fragment == "frag")
        #expect(url.href == "https://User:P%40ss@www.example.com/a/c?x=1&y=%27#frag")
        #expect(url.origin == "https://www.example.com")
        #expect(url.isSpecial)
    }

    @Test func relativeResolution() throws {
        let base = try URLRecord.parse("https://example.com/dir/page?q#f")
        #expect(try URLRecord.parse("../up", base: base).href == "https://example.com/up")
        #expect(try URLRecord.parse("?n", base: base).href == "https://example.com/dir/page?n")
        #expect(try URLRecord.parse("//other.test\\x", base: base).href == "https://other.test/x")
        #expect(try URLRecord.parse("", base: base).href == "https://example.com/dir/page?q")
    }

    @Test func errorReasons() {
        func reason(_ s: String) -> URLParseError.Kind? {
            do {
                _ = try URLRecord.parse(s)
                return nil
            } catch {
                return error.kind
            }
        }
        #expect(reason("no-scheme") == .missingScheme)
        #expect(reason("http://") == .missingHost)
        #expect(reason("http://user@/") == .missingHost)
        #expect(reason("http://[::1/") == .invalidIPv6)
        #expect(reason("http://[1::2::3]/") == .invalidIPv6)
        #expect(reason("http://a%b/") == .forbiddenHostCodePoint(0x25))
        #expect(reason("http://a<b/") == .forbiddenHostCodePoint(0x3C))
        #expect(reason("http://1.2.3.256/") == .invalidIPv4)
        #expect(reason("http://example.com:65536/") == .portOutOfRange)
        #expect(reason("http://example.com:8a/") == .invalidPort)
        #expect(reason("http://\u{200D}.com/") == .invalidDomain)
        #expect(URLParseError(.forbiddenHostCodePoint(0x25)).description == "forbidden host code point '%'")
    }

    @Test func hostForms() throws {
        #expect(try URLHost.parse("0x7f.1") == .ipv4(0x7F00_0001))
        #expect(try URLHost.parse("0300.0250.0.1").serialized == "192.168.0.1")
        #expect(try URLHost.parse("4294967295").serialized == "255.255.255.255")
        #expect(try URLHost.parse("[0:0:0:0:0:ffff:7f00:1]").serialized == "[::ffff:7f00:1]")
        #expect(try URLHost.parse("[1:0:0:2:0:0:0:3]").serialized == "[1:0:0:2::3]")
        #expect(try URLHost.parse("[::127.0.0.1]").serialized == "[::7f00:1]")
        #expect(try URLHost.parse("BÜCHER.example").serialized == "xn--bcher-kva.example")
        #expect(try URLHost.parse("ex%41mple.com") == .domain("example.com"))
        #expect(throws: URLParseError.self) { try URLHost.parse("a b", isOpaque: true) }
        #expect(try URLHost.parse("héllo", isOpaque: true) == .opaque("h%C3%A9llo"))
    }

    @Test func percentEncodeSetsMatchStandard() {
        func set(_ extra: String, base: Set<UInt8>) -> Set<UInt8> { base.union(extra.utf8) }
        let c0 = Set<UInt8>((0..<0x20).map { UInt8($0) } + [0x7F])
        let fragment = set(" \"<>`", base: c0)
        let query = set(" \"#<>", base: c0)
        let specialQuery = set("'", base: query)
        let path = set("?^`{}", base: query)
        let userinfo = set("/:;=@[\\]^|", base: path)
        let component = set("$%&+,", base: userinfo)
        let form = set("!'()~", base: component)
        let pairs: [(PercentEncodeSet, Set<UInt8>)] = [
            (.c0Control, c0), (.fragment, fragment), (.query, query), (.specialQuery, specialQuery),
            (.path, path), (.userinfo, userinfo), (.component, component), (.formURLEncoded, form),
        ]
        for (encodeSet, expected) in pairs {
            for b in UInt8(0)...UInt8(255) {
                #expect(encodeSet.contains(b) == (b >= 0x80 || expected.contains(b)), "byte \(b)")
            }
        }
    }

    @Test func concurrentParsingIsConsistent() async {
        let inputs = ["https://bücher.example/ä?ö#ü", "http://[::1]:8080/x", "http://0x7f.1/", "https://EXAMPLE.com/%2e%2E/a"]
        let expected = inputs.map { (try? URLRecord.parse($0))?.href }
        await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<500 {
                        for (i, s) in inputs.enumerated() where (try? URLRecord.parse(s))?.href != expected[i] {
                            return false
                        }
                    }
                    return true
                }
            }
            for await ok in group { #expect(ok) }
        }
    }

    @Test func hostileInputNeverTraps() {
        // Deterministic pseudo-random mutations over an alphabet of delimiters and odd bytes;
        // the parser must either return a URL whose href re-parses to itself, or throw.
        var rng = SystemRandomNumberGenerator()
        let alphabet: [String] = [
            "/", "\\", ":", "@", "[", "]", "%", "%2e", ".", "..", "?", "#", " ", "\t",
            "\u{0}", "0x", "1", "ß", "\u{200D}", "xn--", "|", "C:", "::", "255",
        ]
        let seeds = ["http://a.b/c", "file:///C:/x", "sc://h/p", "http://[::1]/", "https://u:p@h:1/p?q#f", "a:b"]
        for _ in 0..<3000 {
            var s = seeds[Int.random(in: 0..<seeds.count, using: &rng)]
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                var chars = Array(s)
                let piece = Array(alphabet[Int.random(in: 0..<alphabet.count, using: &rng)])
                let at = Int.random(in: 0...chars.count, using: &rng)
                chars.insert(contentsOf: piece, at: at)
                s = String(chars)
            }
            if let url = try? URLRecord.parse(s) {
                let again = try? URLRecord.parse(url.href)
                #expect(again?.href == url.href, "\(s.debugDescription) -> \(url.href)")
                #expect(Self.rebuilt(url) == url, "rebuild \(s.debugDescription) -> \(url.href)")
            }
        }
    }
}

extension URLParserTests {
    @Test func forbiddenCodePointMasksMatchStandard() {
        let host = Set<UInt8>([0x00, 0x09, 0x0A, 0x0D, 0x20] + Array("#/:<>?@[\\]^|".utf8))
        let domain = host.union((0..<0x20).map { UInt8($0) }).union([0x25, 0x7F])
        for b in UInt8(0)...UInt8(255) {
            #expect(URLHost.isForbiddenHostByte(b) == host.contains(b), "host byte \(b)")
            #expect(URLHost.isForbiddenDomainByte(b) == domain.contains(b), "domain byte \(b)")
        }
    }
}

extension URLParserTests {
    /// Rebuilding a record from its component getters must give back the identical record;
    /// this checks the offsets the parser records against an independent serializer.
    static func rebuilt(_ url: URLRecord) -> URLRecord {
        URLRecord(
            scheme: url.scheme, username: url.username, password: url.password, host: url.host,
            port: url.port, path: url.path, query: url.query, fragment: url.fragment)
    }

    @Test func componentsRoundTrip() throws {
        let base = try URLRecord.parse("https://user:pw@example.com:8443/a/b?q#f")
        let inputs = [
            "https://www.example.com/account/logout?next=/home", "http://u:p@[::1]:81/x?y#z", "http://0x7f.1/",
            "file:///C:/dir/../x", "file://server/share", "sc:/.//p", "sc://h:1/p?q#f", "mailto:a@b.c?x#y",
            "blob:https://example.com/uuid", "data:text/plain,hi there?#", "foo://@h/", "http://:pw@h/",
            "../../x?q", "#frag", "?only", "//other.example/", "",
        ]
        for input in inputs {
            let url = try URLRecord.parse(input, base: base)
            #expect(Self.rebuilt(url) == url, "\(input.debugDescription) -> \(url.href)")
        }
    }

    @Test func settersRebuild() throws {
        var url = try URLRecord.parse("https://a.example/x?q#f")
        url.query = "z=1"
        #expect(url.href == "https://a.example/x?z=1#f")
        url.fragment = nil
        url.host = .domain("b.example")
        url.port = 8080
        #expect(url.href == "https://b.example:8080/x?z=1")
        url.path = .segments(["p", "q"])
        url.username = "me"
        #expect(url.href == "https://me@b.example:8080/p/q?z=1")
        #expect(url.pathname == "/p/q")
        #expect(url.hostWithPort == "b.example:8080")
    }
}
