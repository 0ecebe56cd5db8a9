/// A parsed `Content-Type` value: `type/subtype` in lower case plus parameters.
struct MediaType: Equatable {
    var essence: String
    /// Parameter names in lower case; quoted values unquoted.
    var parameters: [String: String]
    /// The first parameter name given more than once (`boundary=a; boundary=b`, or `name` and
    /// `name*`), compared case-insensitively. Parsers disagree on which one wins, so callers refuse the value.
    var repeatedParameter: String?

    /// The first parameter written in RFC 8187's extended notation (`charset*=utf-8''…`), or
    /// nil. Readers that decode it and readers that ignore it see different values, and no
    /// share target needs it, so callers refuse it.
    var extendedParameter: String? { parameters.keys.filter { $0.hasSuffix("*") }.min() }

    /// Parses a header value; nil when it is not `type/subtype[; name=value]*`.
    /// - Parameter backslashEscapes: whether `\` quotes the next character inside a quoted
    ///   value (RFC 9110 quoted-pair). A multipart part's Content-Disposition turns it off:
    ///   browsers write field names as the HTML standard says, with `"` as `%22` and a
    ///   backslash as itself, so `name="\"` names the field `\`.
    init?(_ header: String, backslashEscapes: Bool = true) {
        // Read by bytes: every delimiter is ASCII, and the type and the parameter names must be
        // ASCII too (RFC 9110 tokens; only a quoted value may hold other bytes). Read by
        // `Character`, a header of one long run of combining marks was one `Character` whose every
        // comparison normalized it, quadratic in its length: 42 s of CPU for one 256 KiB intake
        // upload (outside attack 15, F1).
        let parts = Self.splitParameters(Array(header.utf8), backslashEscapes: backslashEscapes)
        guard let first = parts.first, let essence = Self.asciiLowercased(Self.trimmed(first)) else { return nil }
        let halves = essence.split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2, halves.allSatisfy({ !$0.isEmpty && !$0.utf8.contains(UInt8(ascii: " ")) }) else {
            return nil
        }
        self.essence = essence
        var parameters: [String: String] = [:]
        for part in parts.dropFirst() {
            guard let equals = part.firstIndex(of: UInt8(ascii: "=")) else { continue }
            guard let name = Self.asciiLowercased(Self.trimmed(part[..<equals])) else { return nil }
            var value = Self.trimmed(part[(equals + 1)...])
            if value.count >= 2, value.first == UInt8(ascii: "\""), value.last == UInt8(ascii: "\"") {
                let inner = value.dropFirst().dropLast()
                value = backslashEscapes ? Self.unquote(inner) : inner
            }
            // `name*` (RFC 8187's extended notation) names the same parameter as `name`: with
            // both, RFC 6266 readers take the starred one and others the plain one.
            let base = name.hasSuffix("*") ? String(name.dropLast()) : name
            if parameters[name] == nil, base == name || parameters[base] == nil,
                base != name || parameters[name + "*"] == nil
            {
                parameters[name] = String(decoding: value, as: UTF8.self)
            } else if repeatedParameter == nil {
                repeatedParameter = base
            }
        }
        self.parameters = parameters
    }

    /// Splits on `;` outside quoted strings.
    private static func splitParameters(_ header: [UInt8], backslashEscapes: Bool) -> [ArraySlice<UInt8>] {
        var parts: [ArraySlice<UInt8>] = []
        var start = 0
        var quoted = false
        var escaped = false
        for (index, byte) in header.enumerated() {
            if escaped {
                escaped = false
            } else if quoted, backslashEscapes, byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                quoted.toggle()
            } else if byte == UInt8(ascii: ";"), !quoted {
                parts.append(header[start..<index])
                start = index + 1
            }
        }
        parts.append(header[start...])
        return parts
    }

    /// `bytes` without the ASCII spaces, tabs and line breaks around them.
    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return bytes[bytes.startIndex..<bytes.startIndex] }
        return bytes[first...last]
    }

    /// The ASCII text in lower case, or nil when it has a byte outside ASCII.
    private static func asciiLowercased(_ bytes: ArraySlice<UInt8>) -> String? {
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        return String(decoding: bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    private static func unquote(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var result: [UInt8] = []
        var escaped = false
        for byte in bytes {
            if !escaped, byte == UInt8(ascii: "\\") {
                escaped = true
                continue
            }
            escaped = false
            result.append(byte)
        }
        return result[...]
    }
}
