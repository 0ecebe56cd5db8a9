/// A parsed URL host, per the WHATWG URL Standard.
public enum URLHost: Sendable, Hashable {
    /// A domain, ASCII and lowercase after UTS #46 ToASCII (punycode `xn--` labels for non-ASCII).
    case domain(String)
    /// An IPv4 address as a 32-bit number (network order: first octet in the high byte).
    case ipv4(UInt32)
    /// An IPv6 address as eight 16-bit pieces.
    case ipv6([UInt16])
    /// An opaque host of a non-special URL, percent-encoded with the C0 control set.
    case opaque(String)
    /// The empty host (e.g. `file:///x`, or `foo://` with nothing after the slashes).
    case empty

    /// The host serialization: dotted decimal for IPv4, compressed and bracketed for IPv6,
    /// the string itself otherwise.
    public var serialized: String {
        switch self {
        case .domain(let s), .opaque(let s): return s
        case .ipv4(let a): return IPv4Address.serialize(a)
        case .ipv6(let pieces): return "[" + IPv6Address.serialize(pieces) + "]"
        case .empty: return ""
        }
    }

    /// Appends the serialization to a byte buffer (used when building `href` without temporaries).
    func append(to out: inout [UInt8]) {
        switch self {
        case .domain(let s), .opaque(let s): out.append(contentsOf: s.utf8)
        case .ipv4(let a): IPv4Address.append(a, to: &out)
        case .ipv6(let pieces):
            out.append(0x5B)
            IPv6Address.append(pieces, to: &out)
            out.append(0x5D)
        case .empty: break
        }
    }

    /// Internal classification of a host stored inside a `URLRecord`.
    package enum Tag: UInt8, Sendable, Hashable {
        case none, domain, ipv4, ipv6, opaque, empty
    }

    /// Parses a host the way the URL parser does: bracketed IPv6; for non-special (`isOpaque`)
    /// URLs an opaque host; otherwise percent-decode, UTS #46 ToASCII, forbidden domain code
    /// point check, and IPv4 (including hex/octal/short forms) when the domain ends in a number.
    public static func parse(_ input: String, isOpaque: Bool = false) throws(URLParseError) -> URLHost {
        let bytes = Array(input.utf8)
        var out: [UInt8] = []
        let result: Result<(tag: Tag, ipv4: UInt32), URLParseError> = bytes.withUnsafeBufferPointer { buf in
            do throws(URLParseError) {
                return .success(try parse(buf, isOpaque: isOpaque, into: &out))
            } catch {
                return .failure(error)
            }
        }
        let parsed = try result.get()
        return make(tag: parsed.tag, ipv4: parsed.ipv4, serialized: out) ?? .empty
    }

    /// Rebuilds a host value from its tag and serialization (nil for `.none`).
    static func make<C: Collection>(tag: Tag, ipv4: UInt32, serialized: C) -> URLHost? where C.Element == UInt8 {
        switch tag {
        case .none: return nil
        case .empty: return .empty
        case .domain: return .domain(String(decoding: serialized, as: UTF8.self))
        case .opaque: return .opaque(String(decoding: serialized, as: UTF8.self))
        case .ipv4: return .ipv4(ipv4)
        case .ipv6:
            // The serialization is canonical "[...]", so re-parsing cannot fail.
            let inner = Array(serialized.dropFirst().dropLast())
            let pieces = inner.withUnsafeBufferPointer { try? IPv6Address.parse($0) }
            return .ipv6(pieces ?? [UInt16](repeating: 0, count: 8))
        }
    }

    /// Host parser over raw bytes (the parser's host buffer, with tabs/newlines already removed).
    /// Appends the host's serialization to `out` and returns its tag (and IPv4 value).
    static func parse(
        _ input: UnsafeBufferPointer<UInt8>, isOpaque: Bool,
        into out: inout [UInt8]
    ) throws(URLParseError) -> (tag: Tag, ipv4: UInt32) {
        let count = input.count
        if count > 0, input[0] == 0x5B {
            guard count >= 2, input[count - 1] == 0x5D else { throw URLParseError(.invalidIPv6) }
            let pieces = try IPv6Address.parse(UnsafeBufferPointer(rebasing: input[1..<(count - 1)]))
            out.append(0x5B)
            IPv6Address.append(pieces, to: &out)
            out.append(0x5D)
            return (.ipv6, 0)
        }
        if isOpaque { return (try parseOpaque(input, into: &out), 0) }
        if count == 0 { throw URLParseError(.missingHost) }

        // Domain to ASCII. An all-ASCII domain is just ASCII-lowercased: UTS #46 maps only
        // uppercase ASCII, and since whatwg/url#914 a ToASCII failure on an all-ASCII domain
        // (e.g. an invalid "xn--" label) also falls back to the lowercased domain. So UTS #46
        // ToASCII only runs when the (percent-decoded) domain contains non-ASCII bytes; then it
        // validates every label, "xn--" ones included.
        var needsIDNA = false
        var hasPercent = false
        var firstForbidden: UInt8? = nil
        for b in input {
            if b >= 0x80 {
                needsIDNA = true
            } else if b == 0x25 {
                hasPercent = true
            } else if firstForbidden == nil, isForbiddenDomainByte(b) {
                firstForbidden = b
            }
        }
        // Forbidden ASCII stays forbidden unless IDNA may see it: NFC composes "<", "=" and ">"
        // with a following U+0338 into the valid "≮", "≠" and "≯" (which the check after IDNA
        // then sees), so only a domain with neither non-ASCII nor '%' fails early.
        if let firstForbidden, !needsIDNA, !hasPercent {
            throw URLParseError(.forbiddenHostCodePoint(firstForbidden))
        }
        if !needsIDNA && !hasPercent {
            // ASCII without escapes (nearly every domain): forbidden bytes were refused above,
            // and only upper case can change it. A domain that ends in a number is an IPv4
            // address, whose parser reads hex digits and `0X` in either case; any other is
            // written lower-cased straight into `out` (no temporary array: one allocation less
            // for `APP.example.com`), the one way for such a domain, upper case or not.
            if IPv4Address.endsInANumber(input) { return try finishDomain(input, into: &out) }
            for b in input { out.append(b &- 0x41 < 26 ? b | 0x20 : b) }
            return (.domain, 0)
        }
        let decoded = hasPercent ? PercentEncodeSet.decode(input) : Array(input)
        let ascii: [UInt8]
        if decoded.contains(where: { $0 >= 0x80 }) {
            ascii = try IDNA.toASCII(decoded)
        } else {
            ascii = decoded.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        }
        if ascii.isEmpty { throw URLParseError(.invalidDomain) }
        for b in ascii where isForbiddenDomainByte(b) {
            throw URLParseError(.forbiddenHostCodePoint(b))
        }
        let result: Result<(tag: Tag, ipv4: UInt32), URLParseError> = ascii.withUnsafeBufferPointer { buf in
            do throws(URLParseError) {
                return .success(try finishDomain(buf, into: &out))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Last step of the host parser for an ASCII domain, lower case unless it ends in a number
    /// (the IPv4 parser reads either case): IPv4 if it ends in a number.
    private static func finishDomain(
        _ ascii: UnsafeBufferPointer<UInt8>,
        into out: inout [UInt8]
    ) throws(URLParseError) -> (tag: Tag, ipv4: UInt32) {
        if IPv4Address.endsInANumber(ascii) {
            let v = try IPv4Address.parse(ascii)
            IPv4Address.append(v, to: &out)
            return (.ipv4, v)
        }
        out.append(contentsOf: ascii)
        return (.domain, 0)
    }

    /// Forbidden host code points: NUL, tab, LF, CR, space, # / : < > ? @ [ \ ] ^ |
    /// (bit masks over ASCII; non-ASCII bytes are never forbidden).
    @inline(__always)
    static func isForbiddenHostByte(_ b: UInt8) -> Bool {
        if b < 64 { return 0xD400_8009_0000_2601 & (1 &<< UInt64(b)) != 0 }
        if b < 128 { return 0x1000_0000_7800_0001 & (1 &<< UInt64(b &- 64)) != 0 }
        return false
    }

    /// Forbidden domain code points: forbidden host code points, C0 controls, '%', DEL.
    @inline(__always)
    static func isForbiddenDomainByte(_ b: UInt8) -> Bool {
        if b < 64 { return 0xD400_8029_FFFF_FFFF & (1 &<< UInt64(b)) != 0 }
        if b < 128 { return 0x9000_0000_7800_0001 & (1 &<< UInt64(b &- 64)) != 0 }
        return false
    }

    /// The opaque-host parser: reject forbidden host code points, C0-percent-encode the rest.
    static func parseOpaque(_ input: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) throws(URLParseError) -> Tag {
        if input.isEmpty { return .empty }
        for b in input where isForbiddenHostByte(b) {
            throw URLParseError(.forbiddenHostCodePoint(b))
        }
        let set = PercentEncodeSet.c0Control
        for b in input { set.append(b, to: &out) }
        return .opaque
    }
}
