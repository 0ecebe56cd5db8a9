import NavigationPolicy

/// The one place where the enforcement points that take the host from a field the client
/// sets (the ext_authz HTTP and gRPC services: `Host`/`:authority`; `/v1/authz`: the front
/// proxy's `X-Forwarded-Host` or `X-Original-URL`) turn that host into the navigation to decide.
///
/// Behind an edge (Envoy with `domains: ["*"]`, nginx) the port in `Host` is the client's free
/// choice, and the app serves the same pages whatever it says: `app.example.com:8443` must not
/// slip past a rule written for `https://app.example.com/admin`. So a URL with a port is also
/// decided without it (``NavigationRequest/urlWithoutClientPort``) and a cancel in either
/// reading wins: no port the client names gets a request past a handler that cancels it on the
/// default port, nor past one that cancels it on that port (docs/security.md, "Host ports").
/// The forward proxy and `CONNECT` are not such front ends: they connect to the port they
/// decide, and the reverse proxy decides on `proxy.publicOrigin`, never on the client's `Host`.
enum ClientAuthority {
    /// The navigation for `url` (built from client-named host fields), with the port-free
    /// reading when `url` names a port other than its scheme's default.
    ///
    /// - Parameter field: the request field a refusal names.
    /// - Throws: 400 when the port cannot be taken out of the URL's own spelling so that what
    ///   is left is the same URL without it (a URL the parser reads differently from its text):
    ///   never decided on one reading only.
    static func navigation(url: String, method: String, field: String) throws(ServiceProblem) -> NavigationRequest {
        var navigation = NavigationRequest(url: url, method: method)
        // An unparsable URL is refused by the decision itself (400, field url).
        guard let parsed = try? URLRecord.parse(url), parsed.port != nil else { return navigation }
        var expected = parsed
        expected.port = nil
        guard let portless = withoutPort(url), (try? URLRecord.parse(portless))?.href == expected.href else {
            throw ServiceProblem(
                .invalidRequest(
                    "the URL's port cannot be told apart from its host: send the host as host[:port] with nothing else "
                        + "(no spaces, control characters or escapes around the port)", field: field))
        }
        navigation.urlWithoutClientPort = portless
        return navigation
    }

    /// `url` with the `:port` of its authority cut out, on its bytes; nil when it has no
    /// `scheme://`. The caller checks the result parses as the same URL without the port.
    static func withoutPort(_ url: String) -> String? {
        let bytes = Array(url.utf8)
        let separator = Array("://".utf8)
        guard let schemeEnd = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) else { return nil }
        let authorityStart = schemeEnd + separator.count
        // The authority ends where the WHATWG parser ends it for a special scheme.
        let authorityEnd = bytes[authorityStart...].firstIndex { Self.authorityEnds.contains($0) } ?? bytes.count
        let hostStart = bytes[authorityStart..<authorityEnd].lastIndex(of: UInt8(ascii: "@")).map { $0 + 1 } ?? authorityStart
        // An IPv6 literal's colons are inside its brackets.
        let portSearchStart = bytes[hostStart..<authorityEnd].lastIndex(of: UInt8(ascii: "]")) ?? hostStart
        guard let colon = bytes[portSearchStart..<authorityEnd].lastIndex(of: UInt8(ascii: ":")) else { return url }
        return String(decoding: bytes[..<colon] + bytes[authorityEnd...], as: UTF8.self)
    }

    private static let authorityEnds: Set<UInt8> = Set("/?#\\".utf8)

    /// Whether `host` can stand as a URL's `host[:port]`: none of the bytes that would end
    /// the authority or start userinfo, so the field cannot move the URL's real host somewhere
    /// else. Every header-derived front end checks its host field with it.
    static func isHostField(_ host: String) -> Bool {
        !host.utf8.contains(where: { forbiddenInHost.contains($0) })
    }

    private static let forbiddenInHost: Set<UInt8> = Set("/?#@\\ \t".utf8)
}
