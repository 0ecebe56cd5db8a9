import Testing

@testable import PolicyService

@Suite("proxy target form: which targets are absolute http(s) URLs")
struct ProxyTargetFormTests {
    @Test("http:// and https:// in any case are absolute; other schemes, partial prefixes and paths are not")
    func absoluteHTTP() {
        for target in ["http://a/", "HTTP://a/", "hTtPs://a/x?y", "https://", "http://"] {
            #expect(ProxyResponder.isAbsoluteHTTP(target), "\(target)")
        }
        for target in ["/x", "ftp://a/", "http:/a", "https:a", "httpx://a", "http", "", "http//a", "hxxp://a", "httpss://a"] {
            #expect(!ProxyResponder.isAbsoluteHTTP(target), "\(target)")
        }
    }

    @Test("a combining mark after // makes the slash part of another character, as the character comparison saw it")
    func combiningMarkAfterSlashes() {
        #expect(!ProxyResponder.isAbsoluteHTTP("http://\u{301}a/"))
        #expect(!ProxyResponder.isAbsoluteHTTP("https://\u{301}a/"))
        #expect(ProxyResponder.isAbsoluteHTTP("http://é/"))
    }

    @Test("the fragment is cut at the first #, bytes before it kept exactly; a URL without one is unchanged")
    func withoutFragment() {
        #expect(ProxyResponder.withoutFragment("http://a/p?q#f") == "http://a/p?q")
        #expect(ProxyResponder.withoutFragment("http://a/p#f#g") == "http://a/p")
        #expect(ProxyResponder.withoutFragment("http://a/#") == "http://a/")
        #expect(ProxyResponder.withoutFragment("http://a/p?q") == "http://a/p?q")
        #expect(ProxyResponder.withoutFragment("http://é.example/ü#x") == "http://é.example/ü")
        #expect(ProxyResponder.withoutFragment("#") == "")
        #expect(ProxyResponder.withoutFragment("") == "")
    }
}
