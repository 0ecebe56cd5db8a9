/// The text form of a bundle's detached signature: ``BundleFormat/signatureField``, the `.sig`
/// file beside a bundle, the client cache's signature line. Padded standard base64 (`A-Z a-z 0-9
/// + /`, `=` only as the last one or two characters of a four-character group), with only ASCII
/// whitespace (space, tab, CR, LF) around it.
///
/// The one reader of every native reader (`navpolicyd bundle verify`, the app client's header,
/// shipped `.sig` file and cache); the WebAssembly API reads the same texts (its `base64Bytes`,
/// held to this one by `limits.test.mjs`, which asks `navpolicyd bundle verify` about each).
/// Foundation's `Data(base64Encoded:)` after trimming Unicode whitespace took runs of extra `=`
/// and NBSP, NEL, ZWSP or U+3000 around a signature that the WebAssembly API refuses (outside
/// attack round 13, N5).
public enum SignatureText {
    /// The bytes `text` stands for, or nil when it is not padded standard base64 once the ASCII
    /// whitespace around it is gone.
    public static func decode(_ text: String) -> [UInt8]? { decode(bytes: Array(text.utf8)) }

    /// The same for a text's bytes as a file holds them: a leading byte order mark is three bytes
    /// that are not base64 (reading the file as a `String` drops it, and took such a signature).
    public static func decode(bytes text: [UInt8]) -> [UInt8]? {
        var start = 0
        var end = text.count
        while start < end, isASCIIWhitespace(text[start]) { start += 1 }
        while end > start, isASCIIWhitespace(text[end - 1]) { end -= 1 }
        let characters = text[start..<end]
        guard characters.count % 4 == 0 else { return nil }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(characters.count / 4 * 3)
        var group = characters.startIndex
        while group < characters.endIndex {
            let isLast = group + 4 == characters.endIndex
            var sextets: [UInt8] = []
            var padding = 0
            for offset in 0..<4 {
                let character = characters[group + offset]
                if character == UInt8(ascii: "=") {
                    // Padding only in a last group's third and fourth place, and nothing after it.
                    guard isLast, offset >= 2 else { return nil }
                    padding += 1
                } else {
                    guard padding == 0, let value = sextet(character) else { return nil }
                    sextets.append(value)
                }
            }
            let bits = sextets.reduce(UInt32(0)) { $0 << 6 | UInt32($1) } << (6 * UInt32(padding))
            decoded.append(UInt8(truncatingIfNeeded: bits >> 16))
            if padding < 2 { decoded.append(UInt8(truncatingIfNeeded: bits >> 8)) }
            if padding < 1 { decoded.append(UInt8(truncatingIfNeeded: bits)) }
            group += 4
        }
        return decoded
    }

    private static func isASCIIWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A
    }

    private static func sextet(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
