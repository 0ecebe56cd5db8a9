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
///    a `%` that starts no escape becomes `%25`, so the form is stable under a second pass;
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

    /// The match form of a parsed URL's path.
    public init(_ url: URLRecord) {
        self.init(pathname: url.pathname, isOpaque: url.hasOpaquePath)
    }

    /// Normalizes a serialized WHATWG path in one pass over its bytes.
    ///
    /// This runs for every request, so it writes straight into one output buffer: `/`
    /// only ever appears there as a separator (an escaped `%2F` is not unreserved and stays
    /// escaped), so `..` can drop the previous segment by cutting at the last `/`.
    package init(pathname: String, isOpaque: Bool) {
        let input = Array(pathname.utf8)
        if isOpaque {
            text = String(decoding: Self.decodeUnreserved(input), as: UTF8.self)
            folded = asciiLowercased(text)
            return
        }
        var output: [UInt8] = []
        output.reserveCapacity(input.count + 1)
        var index = 0
        while index < input.count {
            // `index` is at a `/` (WHATWG paths of special and hierarchical URLs start with one).
            if input[index] == UInt8(ascii: "/") { index += 1 }
            let segmentStart = output.count
            output.append(UInt8(ascii: "/"))
            var inParameters = false
            while index < input.count, input[index] != UInt8(ascii: "/") {
                var byte = input[index]
                var width = 1
                if byte == UInt8(ascii: "%"), index + 2 < input.count,
                    let high = PercentEncodeSet.hexValue(input[index + 1]), let low = PercentEncodeSet.hexValue(input[index + 2])
                {
                    width = 3
                    let decoded = high << 4 | low
                    if Self.isUnreserved(decoded) {
                        byte = decoded
                    } else if !inParameters {
                        output.append(contentsOf: [UInt8(ascii: "%"), Self.upperHex(high), Self.upperHex(low)])
                        index += width
                        continue
                    }
                }
                index += width
                if byte == UInt8(ascii: ";") && width == 1 { inParameters = true }
                if inParameters { continue }
                if byte == UInt8(ascii: "%") && width == 1 {
                    // A `%` that starts no escape is written as `%25`: left bare, `/%3%30` would
                    // become `/%30` here and `/0` when normalized again (found by FuzzURL).
                    output.append(contentsOf: [UInt8(ascii: "%"), UInt8(ascii: "2"), UInt8(ascii: "5")])
                } else {
                    output.append(byte)
                }
            }
            switch output.count - segmentStart {
            case 1:  // empty segment: merged away
                output.removeLast()
            case 2 where output[segmentStart + 1] == UInt8(ascii: "."):
                output.removeSubrange(segmentStart...)
            case 3 where output[segmentStart + 1] == UInt8(ascii: ".") && output[segmentStart + 2] == UInt8(ascii: "."):
                output.removeSubrange(segmentStart...)
                if let previous = output.lastIndex(of: UInt8(ascii: "/")) { output.removeSubrange(previous...) }
            default:
                break
            }
        }
        if output.isEmpty { output.append(UInt8(ascii: "/")) }
        text = String(decoding: output, as: UTF8.self)
        folded = asciiLowercased(text)
    }

    /// Whether `matches` holds for the path or one of its leading whole-segment parts,
    /// longest first, ending with `/`: `/a/b` → `/a/b`, `/a`, `/`. These are the prefixes that
    /// cover it. Slices, not new strings: this runs for every request.
    static func anyLeadingSubpath(of path: String, _ matches: (Substring) -> Bool) -> Bool {
        var current = Substring(path)
        while true {
            if matches(current) { return true }
            guard let slash = current.utf8.lastIndex(of: UInt8(ascii: "/")) else { return false }
            if slash == current.startIndex { return current != "/" && matches("/") }
            current = current[..<slash]
        }
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
                let high = PercentEncodeSet.hexValue(bytes[index + 1]), let low = PercentEncodeSet.hexValue(bytes[index + 2])
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
            } else if byte == UInt8(ascii: "%") {
                // A `%` that starts no escape: `%25`, so that a second pass decodes nothing more.
                output.append(contentsOf: [UInt8(ascii: "%"), UInt8(ascii: "2"), UInt8(ascii: "5")])
                index += 1
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

    static func upperHex(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10
    }
}
