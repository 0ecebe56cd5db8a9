public import HTTPTypes

/// Header fields that describe one connection, not the message (RFC 9110 §7.6.1), so a
/// proxy must not forward them; plus the fields a proxy rewrites itself.
public enum HopByHop {
    /// Always connection-specific, whatever `Connection` lists.
    package static let fixed: [String] = [
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer",
        "transfer-encoding", "upgrade",
    ]

    /// `headers` without hop-by-hop fields, without the fields named in `Connection`, and
    /// without `excluding` (names the forwarder sets itself; compared ignoring case).
    public static func stripped(_ headers: HTTPHeaders, excluding: [String] = []) -> HTTPHeaders {
        // The result gets its capacity once: this runs for both directions of every
        // forwarded request, and the callers add a few fields after it.
        var result = HTTPHeaders()
        result.reserveCapacity(headers.count + 4)
        for field in headers where isForwarded(field.name, in: headers, excluding: excluding) {
            result.add(name: field.name, value: field.value)
        }
        return result
    }

    /// Whether the field called `name` in `headers` is forwarded: not hop-by-hop, not in
    /// `excluding`, and not listed in any of `headers`' `Connection` fields.
    ///
    /// Everything is compared in place, ignoring ASCII case (a different length rejects at
    /// once): no lower-cased names, no array of `Connection` tokens per message.
    static func isForwarded(_ name: String, in headers: HTTPHeaders, excluding: [String]) -> Bool {
        let matches: (String) -> Bool = { HTTPHeaders.namesMatch($0, name) }
        if fixed.contains(where: matches) || excluding.contains(where: matches) { return false }
        for field in headers where HTTPHeaders.namesMatch(field.name, "Connection") {
            if lists(field.value, name) { return false }
        }
        return true
    }

    /// Whether the comma-separated `value` has `name` as one of its elements (blanks around
    /// an element ignored, ASCII case ignored).
    private static func lists(_ value: String, _ name: String) -> Bool {
        let isBlank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        let bytes = value.utf8
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: ",")) ?? bytes.endIndex
            let element = bytes[start..<end]
            if let first = element.firstIndex(where: { !isBlank($0) }), let last = element.lastIndex(where: { !isBlank($0) }),
                namesMatch(element[first...last], name.utf8)
            {
                return true
            }
            start = end < bytes.endIndex ? bytes.index(after: end) : end
        }
        return false
    }

    private static func namesMatch(_ token: Substring.UTF8View, _ name: String.UTF8View) -> Bool {
        // Lengths first: most fields are not the one listed (elementsEqual alone is slow).
        guard token.count == name.count else { return false }
        return token.elementsEqual(name) { lhs, rhs in
            (lhs >= 0x41 && lhs <= 0x5A ? lhs | 0x20 : lhs) == (rhs >= 0x41 && rhs <= 0x5A ? rhs | 0x20 : rhs)
        }
    }
}
