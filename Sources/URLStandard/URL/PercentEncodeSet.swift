/// A WHATWG percent-encode set: which bytes must be written as `%XX`.
///
/// Stored as a 128-bit membership mask over ASCII; every byte ≥ 0x80 is always a member
/// (all percent-encode sets in the standard include every code point above U+007E), so
/// encoding can be done byte-by-byte over UTF-8 without decoding code points.
public struct PercentEncodeSet: Sendable, Hashable {
    @usableFromInline let low: UInt64  // members among 0x00...0x3F
    @usableFromInline let high: UInt64  // members among 0x40...0x7F

    @usableFromInline init(low: UInt64, high: UInt64) {
        self.low = low
        self.high = high
    }

    /// Whether `byte` must be percent-encoded.
    @inlinable @inline(__always)
    public func contains(_ byte: UInt8) -> Bool {
        if byte < 64 { return low & (1 &<< UInt64(byte)) != 0 }
        if byte < 128 { return high & (1 &<< UInt64(byte &- 64)) != 0 }
        return true
    }

    // The masks below are the standard's sets written out as constants (computed properties, so
    // using them in the per-byte hot loops costs nothing — no lazy global initialization check).

    /// C0 controls (and DEL, and everything above U+007E).
    @inlinable public static var c0Control: PercentEncodeSet {
        PercentEncodeSet(low: 0x0000_0000_FFFF_FFFF, high: 0x8000_0000_0000_0000)
    }
    /// Fragment: C0 control set plus space, `"`, `<`, `>`, backquote.
    @inlinable public static var fragment: PercentEncodeSet {
        PercentEncodeSet(low: 0x5000_0005_FFFF_FFFF, high: 0x8000_0001_0000_0000)
    }
    /// Query: C0 control set plus space, `"`, `#`, `<`, `>`.
    @inlinable public static var query: PercentEncodeSet {
        PercentEncodeSet(low: 0x5000_000D_FFFF_FFFF, high: 0x8000_0000_0000_0000)
    }
    /// Special-query (special schemes): query set plus `'`.
    @inlinable public static var specialQuery: PercentEncodeSet {
        PercentEncodeSet(low: 0x5000_008D_FFFF_FFFF, high: 0x8000_0000_0000_0000)
    }
    /// Path: query set plus `?`, `^`, backquote, `{`, `}`.
    @inlinable public static var path: PercentEncodeSet {
        PercentEncodeSet(low: 0xD000_000D_FFFF_FFFF, high: 0xA800_0001_4000_0000)
    }
    /// Userinfo: path set plus `/ : ; = @ [ \ ] ^ |`.
    @inlinable public static var userinfo: PercentEncodeSet {
        PercentEncodeSet(low: 0xFC00_800D_FFFF_FFFF, high: 0xB800_0001_7800_0001)
    }
    /// Component: userinfo set plus `$ % & + ,`.
    @inlinable public static var component: PercentEncodeSet {
        PercentEncodeSet(low: 0xFC00_987D_FFFF_FFFF, high: 0xB800_0001_7800_0001)
    }
    /// application/x-www-form-urlencoded: component set plus `! ' ( ) ~`.
    @inlinable public static var formURLEncoded: PercentEncodeSet {
        PercentEncodeSet(low: 0xFC00_9BFF_FFFF_FFFF, high: 0xF800_0001_7800_0001)
    }

    /// Appends `byte` to `out`, percent-encoded if it is a member of this set.
    @inline(__always)
    func append(_ byte: UInt8, to out: inout [UInt8]) {
        if contains(byte) {
            out.append(0x25)
            out.append(PercentEncodeSet.hexDigit(byte >> 4))
            out.append(PercentEncodeSet.hexDigit(byte & 0xF))
        } else {
            out.append(byte)
        }
    }

    /// Uppercase hex digit for a nibble (the standard serializes percent-encodings in uppercase).
    @inline(__always)
    static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? 0x30 &+ nibble : 0x37 &+ nibble
    }

    /// Value of an ASCII hex digit, or nil.
    @inline(__always)
    package static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: return b &- 0x30
        case 0x41...0x46: return b &- 0x37
        case 0x61...0x66: return b &- 0x57
        default: return nil
        }
    }

    /// Percent-encodes a UTF-8 string with this set.
    public func encode(_ string: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(string.utf8.count)
        for b in string.utf8 { append(b, to: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Percent-decodes bytes: `%XX` with two hex digits becomes the byte; anything else is kept as is.
    /// With `plusAsSpace` (`application/x-www-form-urlencoded`), `+` becomes a space.
    public static func decode<C: Collection>(_ input: C, plusAsSpace: Bool = false) -> [UInt8]
    where C.Element == UInt8, C.Index == Int {
        var out: [UInt8] = []
        out.reserveCapacity(input.count)
        var i = input.startIndex
        let end = input.endIndex
        while i < end {
            let b = input[i]
            if b == 0x25, i + 2 < end,
                let hi = hexValue(input[i + 1]), let lo = hexValue(input[i + 2])
            {
                out.append(hi << 4 | lo)
                i += 3
            } else {
                out.append(plusAsSpace && b == UInt8(ascii: "+") ? UInt8(ascii: " ") : b)
                i += 1
            }
        }
        return out
    }
}
