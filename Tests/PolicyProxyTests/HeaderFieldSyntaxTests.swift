import HTTPServer
import PolicyProxy
import Testing

@Suite("header fields the proxy forwards")
struct HeaderFieldSyntaxTests {
    @Test("names must be tokens")
    func names() {
        for name in ["X-A", "accept", "x!#$%&'*+-.^_`|~9"] { #expect(HeaderFieldSyntax.isValidName(name), "\(name)") }
        for name in ["", "Bad Name", "X(A)", "X:A", "X\u{0}", "Ü", "X\r\nY"] {
            #expect(!HeaderFieldSyntax.isValidName(name), "\(name.debugDescription)")
        }
    }

    @Test("values may hold HTAB and visible bytes, never CR, LF, NUL, other controls or DEL")
    func values() {
        for value in ["", "a b\tc", "ümlaut", "\"quoted\", list"] { #expect(HeaderFieldSyntax.isValidValue(value)) }
        for value in ["a\rb", "a\nb", "a\u{0}b", "a\u{1}", "a\u{7F}", "a\r\n b"] {
            #expect(!HeaderFieldSyntax.isValidValue(value), "\(value.debugDescription)")
        }
        let headers = HTTPHeaders([("Accept", "*/*"), ("X-Bad", "a\rGET /logout HTTP/1.1"), ("X-Later", "ok")])
        #expect(HeaderFieldSyntax.firstInvalidField(in: headers) == "X-Bad")
        #expect(HeaderFieldSyntax.firstInvalidField(in: HTTPHeaders([("A", "b")])) == nil)
    }

    @Test("long (heap) and short (inline) Strings and substrings-turned-Strings are checked to their last byte")
    func everyStorageKind() {
        let long = String(repeating: "a", count: 40)
        #expect(HeaderFieldSyntax.isValidName(long) && HeaderFieldSyntax.isValidValue(long))
        #expect(!HeaderFieldSyntax.isValidName(long + " ") && !HeaderFieldSyntax.isValidValue(long + "\r"))
        #expect(!HeaderFieldSyntax.isValidName("ab ") && !HeaderFieldSyntax.isValidValue("ab\u{7F}"))
        let sliced = String("x-name: value\n".split(separator: ":")[1])
        #expect(HeaderFieldSyntax.isValidName("x-name") && !HeaderFieldSyntax.isValidValue(sliced))
    }
}
