import Foundation
import Testing

@testable import NavigationPolicy

/// Every native reader of a signature's text reads it through ``SignatureText``: padded standard
/// base64 with only ASCII whitespace around it, as the WebAssembly API reads it (round 13, N5).
@Suite("Signature text: strict padded base64")
struct SignatureTextTests {
    @Test("every length's encoding decodes to its bytes, with ASCII whitespace around it or not", arguments: 0..<70)
    func roundTrip(length: Int) {
        let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 151 &+ length) }
        let text = Data(bytes).base64EncodedString()
        #expect(SignatureText.decode(text) == bytes)
        #expect(SignatureText.decode(" \t\(text)\r\n") == bytes)
    }

    static let signature = Data((0..<64).map { UInt8($0) }).base64EncodedString()

    @Test(
        "refused: extra padding, padding inside, other spaces around it, other alphabets",
        arguments: [
            signature + "=", signature + "==========", "QQ=", "QQ===", "Q===", "QQ==QQ==", "Q=Q=", "=QQQ",
            "\u{00A0}" + signature, signature + "\u{0085}", "\u{200B}" + signature, signature + "\u{3000}",
            "\u{FEFF}" + signature, signature + "\u{FEFF}", "\u{0B}" + signature, signature + "\u{0C}",
            signature + "\u{2028}", "QQ-_", "QQ==\u{0}", "QQ", "QQQ", "Q",
        ])
    func refused(text: String) {
        #expect(SignatureText.decode(text) == nil)
    }

    @Test("the empty text is no bytes, as in JavaScript's reader (a signature that never verifies)")
    func empty() {
        #expect(SignatureText.decode("") == [])
        #expect(SignatureText.decode(" \n") == [])
    }

    @Test("a file's bytes: a leading byte order mark is refused, not dropped as a String read drops it")
    func fileBytes() {
        let text = Array((Self.signature + "\n").utf8)
        #expect(SignatureText.decode(bytes: text)?.count == 64)
        #expect(SignatureText.decode(bytes: [0xEF, 0xBB, 0xBF] + text) == nil)
        #expect(SignatureText.decode(bytes: text + [0xEF, 0xBB, 0xBF]) == nil)
        #expect(SignatureText.decode(bytes: [0xC2, 0xA0] + text) == nil)  // NBSP
    }
}
