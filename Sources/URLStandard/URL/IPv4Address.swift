/// The WHATWG IPv4 parser and serializer.
///
/// The URL standard accepts the legacy inet_aton forms: one to four dot-separated parts,
/// each decimal, octal (leading `0`) or hex (`0x`), where the last part fills all remaining bytes.
public enum IPv4Address {
    /// Parses `bytes` (an already ASCII-lowercased domain) as an IPv4 address.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(URLParseError) -> UInt32 {
        var end = bytes.count
        // A single trailing dot is permitted ("1.2.3.4.") as long as something precedes it.
        if end > 0, bytes[end - 1] == 0x2E, end > 1 { end -= 1 }
        var numbers: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        var count = 0
        var partStart = 0
        var i = 0
        while i <= end {
            if i == end || bytes[i] == 0x2E {
                if count == 4 { throw URLParseError(.invalidIPv4) }
                guard let n = parseNumber(UnsafeBufferPointer(rebasing: bytes[partStart..<i])) else {
                    throw URLParseError(.invalidIPv4)
                }
                switch count {
                case 0: numbers.0 = n
                case 1: numbers.1 = n
                case 2: numbers.2 = n
                default: numbers.3 = n
                }
                count += 1
                partStart = i + 1
            }
            i += 1
        }
        let all = [numbers.0, numbers.1, numbers.2, numbers.3]
        // Every part but the last must fit in one byte; the last fills the remaining 5 - count bytes.
        var result: UInt64 = 0
        for k in 0..<(count - 1) {
            if all[k] > 255 { throw URLParseError(.invalidIPv4) }
            result |= all[k] << UInt64(8 * (3 - k))
        }
        let last = all[count - 1]
        let limit: UInt64 = 1 << UInt64(8 * (5 - count))
        if last >= limit { throw URLParseError(.invalidIPv4) }
        result += last
        return UInt32(truncatingIfNeeded: result)
    }

    /// The IPv4 number parser. Returns nil on failure. Values saturate at 2^33 because
    /// anything above 2^32 - 1 is rejected by the caller anyway (avoids overflow on long inputs).
    static func parseNumber(_ part: UnsafeBufferPointer<UInt8>) -> UInt64? {
        if part.isEmpty { return nil }
        var start = 0
        var radix: UInt64 = 10
        if part.count >= 2, part[0] == 0x30, part[1] == 0x78 || part[1] == 0x58 {
            start = 2
            radix = 16
        } else if part.count >= 2, part[0] == 0x30 {
            start = 1
            radix = 8
        }
        var value: UInt64 = 0
        var i = start
        while i < part.count {
            let b = part[i]
            let digit: UInt64
            switch b {
            case 0x30...0x39: digit = UInt64(b - 0x30)
            case 0x61...0x66: digit = UInt64(b - 0x57)
            case 0x41...0x46: digit = UInt64(b - 0x37)
            default: return nil
            }
            if digit >= radix { return nil }
            value = value * radix + digit
            if value > (1 << 33) { value = 1 << 33 }
            i += 1
        }
        return value
    }

    /// The "ends in a number" checker: decides whether a domain must be parsed as IPv4.
    package static func endsInANumber(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var end = bytes.count
        if end == 0 { return false }
        if bytes[end - 1] == 0x2E {
            end -= 1
            if end == 0 { return false }
        }
        var start = end
        while start > 0, bytes[start - 1] != 0x2E { start -= 1 }
        let last = UnsafeBufferPointer(rebasing: bytes[start..<end])
        if last.isEmpty { return false }
        if last.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { return true }
        return parseNumber(last) != nil
    }

    /// Dotted-decimal serialization.
    public static func serialize(_ address: UInt32) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(15)
        append(address, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func append(_ address: UInt32, to out: inout [UInt8]) {
        for k in 0..<4 {
            let octet = UInt8(truncatingIfNeeded: address >> UInt32(8 * (3 - k)))
            if octet >= 100 { out.append(0x30 + octet / 100) }
            if octet >= 10 { out.append(0x30 + (octet / 10) % 10) }
            out.append(0x30 + octet % 10)
            if k != 3 { out.append(0x2E) }
        }
    }
}
