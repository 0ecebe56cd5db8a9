/// "Process a URLPatternInit" (https://urlpattern.spec.whatwg.org/#canon-processing-for-init):
/// fills absent components from the base URL (only those less specific than every component
/// given) and, for inputs to match, canonicalizes each component.
extension URLPatternInit {
    /// Whether a dictionary is a pattern to compile (components kept as pattern text, base URL
    /// parts escaped) or an input to match (components canonicalized).
    enum ProcessType {
        case pattern, url
    }

    /// The processed dictionary. `defaults` are the values components start from (the standard
    /// passes null for a pattern and "" for an input).
    func processed(as type: ProcessType, defaults: String?) throws(URLPatternError) -> URLPatternInit {
        var result = URLPatternInit(
            protocol: defaults, username: defaults, password: defaults, hostname: defaults, port: defaults,
            pathname: defaults, search: defaults, hash: defaults)
        var base: URLRecord? = nil
        if let baseURL {
            let parsed: URLRecord
            do throws(URLParseError) {
                parsed = try URLRecord.parse(baseURL)
            } catch {
                throw URLPatternError(.arguments, "the base URL '\(baseURL)' does not parse (\(error))")
            }
            base = parsed
            let given = { (names: [String?]) in names.contains { $0 != nil } }
            func fromBase(_ value: String) -> String { type == .pattern ? PatternEscaping.pattern(value) : value }
            if self.protocol == nil { result.protocol = fromBase(parsed.scheme) }
            if type != .pattern, !given([self.protocol, hostname, port, username]) {
                result.username = fromBase(parsed.username)
            }
            if type != .pattern, !given([self.protocol, hostname, port, username, password]) {
                result.password = fromBase(parsed.password)
            }
            if !given([self.protocol, hostname]) { result.hostname = fromBase(parsed.hostname) }
            if !given([self.protocol, hostname, port]) { result.port = parsed.portString }
            if !given([self.protocol, hostname, port, pathname]) { result.pathname = fromBase(parsed.pathname) }
            if !given([self.protocol, hostname, port, pathname, search]) {
                result.search = fromBase(parsed.query ?? "")
            }
            if !given([self.protocol, hostname, port, pathname, search, hash]) {
                result.hash = fromBase(parsed.fragment ?? "")
            }
        }
        if let value = self.protocol {
            let stripped = Self.strip(value, ":", atEnd: true)
            result.protocol =
                type == .pattern
                ? stripped
                : try URLPatternError.attributed(to: "protocol") { () throws(URLPatternError) in
                    try URLPatternCanonicalization.protocol(stripped)
                }
        }
        if let username {
            result.username = type == .pattern ? username : URLPatternCanonicalization.username(username)
        }
        if let password {
            result.password = type == .pattern ? password : URLPatternCanonicalization.password(password)
        }
        if let hostname {
            result.hostname =
                type == .pattern
                ? hostname
                : try URLPatternError.attributed(to: "hostname") { () throws(URLPatternError) in
                    try URLPatternCanonicalization.hostname(hostname)
                }
        }
        let protocolString = result.protocol ?? ""
        if let port {
            result.port =
                type == .pattern
                ? port
                : try URLPatternError.attributed(to: "port") { () throws(URLPatternError) in
                    try URLPatternCanonicalization.port(port, protocolValue: protocolString)
                }
        }
        if var path = pathname {
            if let base, !base.hasOpaquePath, !Self.isAbsolutePathname(path, type: type) {
                let basePath = type == .pattern ? PatternEscaping.pattern(base.pathname) : base.pathname
                if let slash = basePath.lastIndex(of: "/") {
                    path = String(basePath[...slash]) + path
                }
            }
            if type == .pattern {
                result.pathname = path
            } else if protocolString.isEmpty || URLPatternCanonicalization.isSpecialScheme(protocolString) {
                result.pathname = URLPatternCanonicalization.pathname(path)
            } else {
                result.pathname = URLPatternCanonicalization.opaquePathname(path)
            }
        }
        if let search {
            let stripped = Self.strip(search, "?", atEnd: false)
            result.search = type == .pattern ? stripped : URLPatternCanonicalization.search(stripped)
        }
        if let hash {
            let stripped = Self.strip(hash, "#", atEnd: false)
            result.hash = type == .pattern ? stripped : URLPatternCanonicalization.hash(stripped)
        }
        return result
    }

    /// `value` without one leading (or trailing) `scalar`, compared by code point.
    private static func strip(_ value: String, _ scalar: Unicode.Scalar, atEnd: Bool) -> String {
        var scalars = value.unicodeScalars
        if atEnd, scalars.last == scalar {
            scalars.removeLast()
        } else if !atEnd, scalars.first == scalar {
            scalars.removeFirst()
        }
        return String(scalars)
    }

    /// "Is an absolute pathname": starts with "/", or for a pattern with an escaped "\/" or "{/".
    static func isAbsolutePathname(_ input: String, type: ProcessType) -> Bool {
        let scalars = Array(input.unicodeScalars.prefix(2))
        guard let first = scalars.first else { return false }
        if first == "/" { return true }
        if type == .url || scalars.count < 2 { return false }
        return (first == "\\" || first == "{") && scalars[1] == "/"
    }
}
