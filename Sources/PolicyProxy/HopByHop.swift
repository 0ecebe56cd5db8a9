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
        // Runs twice per forwarded request, so names are compared in place (a different
        // length rejects at once) instead of lower-cased into new Strings.
        // Fields are scanned in place (no array of Connection values), and the result gets
        // its capacity once: this runs for both directions of every forwarded request.
        var named: [String] = []
        for field in headers where HTTPHeaders.namesMatch(field.name, "Connection") {
            for token in field.value.utf8.split(separator: UInt8(ascii: ",")) {
                let isBlank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
                guard let first = token.firstIndex(where: { !isBlank($0) }),
                    let last = token.lastIndex(where: { !isBlank($0) })
                else { continue }
                named.append(String(decoding: token[first...last], as: UTF8.self))
            }
        }
        var result = HTTPHeaders()
        result.reserveCapacity(headers.count + 4)
        for field in headers {
            let matches: (String) -> Bool = { HTTPHeaders.namesMatch($0, field.name) }
            if fixed.contains(where: matches) || excluding.contains(where: matches) || named.contains(where: matches) {
                continue
            }
            result.add(name: field.name, value: field.value)
        }
        return result
    }
}
