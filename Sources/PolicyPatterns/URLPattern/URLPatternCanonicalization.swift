/// The standard's per-component encoding callbacks
/// (https://urlpattern.spec.whatwg.org/#canon-encoding-callbacks): each turns a fixed-text
/// piece of a pattern, or a component of an input dictionary, into the form the URL parser
/// gives that component, or refuses it. They run the project's own URL parser (its host
/// parser, IDNA and percent-encode sets) so that a pattern and a URL agree byte for byte.
enum URLPatternCanonicalization {
    /// The scheme that "parse `value` + `://dummy.invalid/`" yields.
    static func `protocol`(_ value: String) throws(URLPatternError) -> String {
        if value.isEmpty { return value }
        do throws(URLParseError) {
            return try URLRecord.parse(value + "://dummy.invalid/").scheme
        } catch {
            throw URLPatternError(.canonicalization, "'\(value)' is not a valid scheme (\(error))")
        }
    }

    /// The username as the username setter stores it (userinfo percent-encode set).
    static func username(_ value: String) -> String {
        PercentEncodeSet.userinfo.encode(value)
    }

    /// The password as the password setter stores it (userinfo percent-encode set).
    static func password(_ value: String) -> String {
        PercentEncodeSet.userinfo.encode(value)
    }

    /// The host the hostname setter of an `https:` URL stores (IDNA, IPv4/IPv6 forms), serialized.
    static func hostname(_ value: String) throws(URLPatternError) -> String {
        if value.isEmpty { return value }
        do throws(URLParseError) {
            return try URLParser.hostnameOverride(value)
        } catch {
            throw URLPatternError(.canonicalization, "'\(value)' is not a valid hostname (\(error))")
        }
    }

    /// An IPv6 hostname pattern's text: hex digits, `[`, `]` and `:` only, lowercased.
    static func ipv6Hostname(_ value: String) throws(URLPatternError) -> String {
        var result = ""
        for scalar in value.unicodeScalars {
            guard scalar.properties.isASCIIHexDigit || scalar == "[" || scalar == "]" || scalar == ":" else {
                throw URLPatternError(
                    .canonicalization, "'\(scalar)' cannot appear in an IPv6 hostname pattern")
            }
            result.unicodeScalars.append(contentsOf: String(scalar).lowercased().unicodeScalars)
        }
        return result
    }

    /// The port the port setter stores on a URL of scheme `protocolValue`: "" for that scheme's
    /// default port. Without a protocol (a pattern's port component, compiled on its own) the
    /// dummy URL's scheme is the empty string, which has no default port, so every port is kept
    /// as written: the standard as fixed by whatwg/urlpattern PR 286 (issue 285). The older text
    /// used an `https` dummy, so `{"port": "443"}` compiled to the empty port, matching every
    /// default-port URL (`http://a.example/` included) and never `443` itself, and `*443` to `*`.
    static func port(_ value: String, protocolValue: String = "") throws(URLPatternError) -> String {
        if value.isEmpty { return value }
        do throws(URLParseError) {
            return try URLParser.portOverride(value, scheme: protocolValue)
        } catch {
            throw URLPatternError(.canonicalization, "'\(value)' is not a valid port (\(error))")
        }
    }

    /// A hierarchical path (or a piece of one) as the parser writes it; a piece that does not start
    /// with "/" is parsed behind "/-" so that no slash is added and a leading dot stays a dot.
    static func pathname(_ value: String) -> String {
        if value.isEmpty { return value }
        let leadingSlash = value.unicodeScalars.first == "/"
        let result = URLParser.specialPathOverride(leadingSlash ? value : "/-" + value)
        return leadingSlash ? result : String(result.unicodeScalars.dropFirst(2))
    }

    /// An opaque path (`data:`, `mailto:` …) as the parser writes it.
    static func opaquePathname(_ value: String) -> String {
        if value.isEmpty { return value }
        return URLParser.opaquePathOverride(value)
    }

    /// A query as the parser writes it for a special URL.
    static func search(_ value: String) -> String {
        if value.isEmpty { return value }
        return URLParser.specialQueryOverride(value)
    }

    /// A fragment as the parser writes it.
    static func hash(_ value: String) -> String {
        if value.isEmpty { return value }
        return URLParser.fragmentOverride(value)
    }

    /// Whether `scheme` is one of the URL Standard's special schemes.
    static func isSpecialScheme(_ scheme: String) -> Bool {
        URLScheme.classify(scheme.utf8) != .other
    }

    /// The special scheme's default port, as a string ("" for none).
    static func defaultPort(_ scheme: String) -> String? {
        URLScheme.classify(scheme.utf8).defaultPort.map { String($0) }
    }

    /// The special schemes, for "protocol component matches a special scheme".
    static let specialSchemes = ["ftp", "file", "http", "https", "ws", "wss"]
}
