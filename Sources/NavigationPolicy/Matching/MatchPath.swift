/// The comparison-only form of a URL path.
///
/// The WHATWG serialization keeps things origin servers fold away (`%6C`, `;params`,
/// `//`), so a policy matched on it can be dodged with `/%6Cogout` or `/logout;x`.
/// This form reads the path the way lenient servers do, and is used only to compare:
/// decisions always report the WHATWG `href`.
///
/// Steps, in this order (the order matters: `/public/..;/admin` must become `/admin`):
/// 1. decode percent-encoded unreserved bytes (`A-Z a-z 0-9 - . _ ~`); other escapes stay,
///    with upper-case hex, so `%2F` never turns into a separator and `%252e` is not decoded twice;
/// 2. strip `;parameters` from every segment;
/// 3. merge repeated `/` (drop empty segments);
/// 4. remove `.` and `..` segments again.
///
/// The result never ends in `/` (unless it is `/`), so `paths` ignore a trailing slash and
/// prefixes compare whole segments. Opaque paths (`javascript:alert(1)`) are only decoded:
/// they have no segments and never start with `/`, so no path pattern matches them.
public struct MatchPath: Sendable, Equatable {
    /// The normalized path, case preserved.
    public let text: String
    /// The same, ASCII lower case: what case-insensitive matchers compare.
    public let folded: String

    public init(_ path: URLPath) {
        switch path {
        case .opaque(let opaque):
            // Opaque paths (`javascript:…`, `mailto:…`) have no segments; only decode.
            let decoded = Self.decodeUnreserved(Array(opaque.utf8))
            text = String(decoding: decoded, as: UTF8.self)
        case .segments(let segments):
            var output: [String] = []
            output.reserveCapacity(segments.count)
            for segment in segments {
                var bytes = Self.decodeUnreserved(Array(segment.utf8))
                if let semicolon = bytes.firstIndex(of: UInt8(ascii: ";")) {
                    bytes.removeSubrange(semicolon...)
                }
                if bytes.isEmpty { continue }
                if bytes == [UInt8(ascii: ".")] { continue }
                if bytes == [UInt8(ascii: "."), UInt8(ascii: ".")] {
                    _ = output.popLast()
                    continue
                }
                output.append(String(decoding: bytes, as: UTF8.self))
            }
            text = "/" + output.joined(separator: "/")
        }
        folded = asciiLowercased(text)
    }

    /// Decodes `%XX` when XX is an unreserved byte, upper-cases the hex of every other escape.
    static func decodeUnreserved(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.contains(UInt8(ascii: "%")) else { return bytes }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                let decoded = high << 4 | low
                if isUnreserved(decoded) {
                    output.append(decoded)
                } else {
                    output.append(UInt8(ascii: "%"))
                    output.append(upperHex(high))
                    output.append(upperHex(low))
                }
                index += 3
            } else {
                output.append(byte)
                index += 1
            }
        }
        return output
    }

    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func upperHex(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10
    }
}
