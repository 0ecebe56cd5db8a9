/// The name of a query parameter as the decision log's redaction compares it
/// (`decisionLog.redactQueryParameters`): pure, so the section's validator (a listed name that
/// normalizes to nothing is refused) and the daemon's per-line redaction read names by one rule.
///
/// Inlinable: the daemon calls it on the decision log's hot path, where it must specialize for
/// the log's in-place byte buffers as it did when it lived there.
public enum QueryParameterName {
    /// Levels of percent-decoding looked through; what is still escaped deeper is hidden.
    @inlinable public static var decodingDepth: Int { 4 }

    /// A parameter name as compared: the one reading under which every name the common server
    /// stacks take for a listed one compares equal to it (issue 38, item 6; docs/operations.md
    /// lists the stacks). Listed and raw names both go through it, so a reading that merges
    /// more names only hides more.
    ///
    /// - `+` as space and `%XX` decoded (form decoding: PHP, Rack, Django, Express, Go,
    ///   servlets), repeatedly, at most ``decodingDepth`` times;
    /// - ASCII tab and newlines dropped (the URL parser removes them);
    /// - cut at the first NUL (PHP reads a name as a C string: `code%00x` is `code`);
    /// - a `[…]` suffix with its `]` dropped (`code[]`, `code[0]`: PHP, Rack, qs), an unclosed
    ///   `[` read as `_` (PHP: `access[token` is `access_token`);
    /// - surrounding spaces trimmed (PHP drops leading ones);
    /// - space and `.` read as `_` (PHP: `access.token`, `access token`, `access+token` are
    ///   `access_token`);
    /// - `%uXXXX` decoded as a UTF-16 code unit (IIS, ASP.NET's `HttpUtility.UrlDecode`);
    /// - lower-cased through upper case (ASP.NET and IIS read names case-insensitively with
    ///   `OrdinalIgnoreCase`, so `acceſs_token` is `access_token` there).
    public static func normalizedName(_ raw: ArraySlice<UInt8>) -> String {
        normalized(raw).name
    }

    /// ``normalizedName(_:)`` and whether the name would still decode further after
    /// ``decodingDepth`` levels.
    @inlinable
    public static func normalized<Input: RandomAccessCollection<UInt8>>(_ raw: Input) -> (name: String, stillEscaped: Bool)
    where Input.Index == Int {
        // The URL parser removes every ASCII tab and newline from its input (WHATWG URL), so
        // `co<TAB>de` in the logged, as-sent URL is `code` to the daemon and to the application:
        // they are dropped here too, at every decoding level (hiding more, never less).
        let isRemoved = { (byte: UInt8) in byte == 0x09 || byte == 0x0A || byte == 0x0D }
        var name = ArraySlice(raw.filter { !isRemoved($0) })
        var stillEscaped = false
        for level in 0...decodingDepth {
            guard name.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else { break }
            let decoded = formDecoded(name).filter { !isRemoved($0) }
            if decoded.elementsEqual(name) { break }
            // One level more than is looked through still changes the name: it is hidden.
            guard level < decodingDepth else {
                stillEscaped = true
                break
            }
            name = decoded[...]
        }
        if let nul = name.firstIndex(of: 0) { name = name[..<nul] }
        var mangled = Array(name)
        if let bracket = mangled.firstIndex(of: UInt8(ascii: "[")), bracket > mangled.startIndex {
            if mangled[(bracket + 1)...].contains(UInt8(ascii: "]")) {
                mangled.removeSubrange(bracket...)
            } else {
                mangled[bracket] = UInt8(ascii: "_")
            }
        }
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        guard let first = mangled.firstIndex(where: { !isSpace($0) }),
            let last = mangled.lastIndex(where: { !isSpace($0) })
        else { return ("", stillEscaped) }
        let read = mangled[first...last].map { $0 == 0x20 || $0 == UInt8(ascii: ".") ? UInt8(ascii: "_") : $0 }
        let text = String(decoding: read, as: UTF8.self)
        // ASP.NET compares names with OrdinalIgnoreCase, which upper-cases each character first:
        // `ſ` (U+017F) and `K` (U+212A) are `S` and `K` there. Folding through upper case merges
        // what it merges; ASCII-only names (nearly all) take the plain lower-casing.
        guard read.contains(where: { $0 >= 0x80 }) else { return (text.lowercased(), stillEscaped) }
        return (text.uppercased().lowercased(), stillEscaped)
    }

    /// `application/x-www-form-urlencoded` decoding: `+` is a space, `%XX` a byte; a `%` not
    /// followed by two hex digits stays as it is (as WHATWG's percent-decode does).
    @inlinable
    public static func formDecoded<Input: RandomAccessCollection<UInt8>>(_ bytes: Input) -> [UInt8]
    where Input.Index == Int {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                out.append(0x20)
            } else if byte == UInt8(ascii: "%"), let high = hexValue(bytes, index + 1), let low = hexValue(bytes, index + 2) {
                out.append(high << 4 | low)
                index += 3
                continue
            } else if byte == UInt8(ascii: "%"), let unit = percentU(bytes, index) {
                // `%uXXXX`: a UTF-16 code unit, as IIS and ASP.NET's HttpUtility.UrlDecode read it
                // (`%u0063ode` is `code` there); a lone surrogate is U+FFFD, as they decode it.
                out.append(contentsOf: String(Unicode.Scalar(unit) ?? "\u{FFFD}").utf8)
                index += 6
                continue
            } else {
                out.append(byte)
            }
            index += 1
        }
        return out
    }

    /// The code unit of a `%uXXXX` escape starting at `index` (the `%`), or nil.
    @inlinable
    static func percentU<Input: RandomAccessCollection<UInt8>>(_ bytes: Input, _ index: Int) -> UInt16?
    where Input.Index == Int {
        guard index + 5 < bytes.endIndex, bytes[index + 1] | 0x20 == UInt8(ascii: "u") else { return nil }
        var unit: UInt16 = 0
        for offset in 2...5 {
            guard let digit = hexValue(bytes, index + offset) else { return nil }
            unit = unit << 4 | UInt16(digit)
        }
        return unit
    }

    @inlinable
    static func hexValue<Input: RandomAccessCollection<UInt8>>(_ bytes: Input, _ index: Int) -> UInt8?
    where Input.Index == Int {
        guard index >= bytes.startIndex, index < bytes.endIndex else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return bytes[index] - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return bytes[index] - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return bytes[index] - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
