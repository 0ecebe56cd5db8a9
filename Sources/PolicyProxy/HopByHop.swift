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
        var named = fixed.union(excluding)
        for value in headers.values(for: "Connection") {
            for token in value.split(separator: ",") {
                let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
                named.insert(String(token.drop(while: isBlank).reversed().drop(while: isBlank).reversed()).lowercased())
            }
        }
        var result = HTTPHeaders()
        for field in headers where !named.contains(field.name.lowercased()) {
            result.add(name: field.name, value: field.value)
        }
        return result
    }
}
