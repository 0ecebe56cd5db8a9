public import HTTPServer

/// Header fields that describe one connection, not the message (RFC 9110 §7.6.1), so a
/// proxy must not forward them; plus the fields a proxy rewrites itself.
public enum HopByHop {
    /// Always connection-specific, whatever `Connection` lists.
    static let fixed: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer",
        "transfer-encoding", "upgrade",
    ]

    /// `headers` without hop-by-hop fields, without the fields named in `Connection`, and
    /// without `excluding` (lower-case names the forwarder sets itself).
    public static func stripped(_ headers: HTTPHeaders, excluding: Set<String> = []) -> HTTPHeaders {
        // Runs twice per forwarded request: no set is built unless `Connection` names fields.
        var named: Set<String> = []
        for value in headers.values(for: "Connection") {
            for token in value.utf8.split(separator: UInt8(ascii: ",")) {
                let isBlank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
                guard let first = token.firstIndex(where: { !isBlank($0) }),
                    let last = token.lastIndex(where: { !isBlank($0) })
                else { continue }
                named.insert(String(decoding: token[first...last], as: UTF8.self).lowercased())
            }
        }
        var result = HTTPHeaders()
        for field in headers {
            let name = field.name.lowercased()
            if fixed.contains(name) || excluding.contains(name) || named.contains(name) { continue }
            result.add(name: field.name, value: field.value)
        }
        return result
    }
}
