extension PolicyLint {
    /// `urlPatternDefaultPortOnly` for each `urlPatterns` entry of `matcher` that pins the empty
    /// port on an `http(s)`-like scheme (every pattern string without a port does:
    /// `https://*.example.com/admin{/*}?`), in a policy with an `extAuthz` section.
    ///
    /// Behind Envoy the port in `Host` is the client's choice. navpolicyd decides such a request
    /// without the port as well and a cancel wins (``NavigationRequest/urlWithoutClientPort``),
    /// so a cancel written this way holds on every port; but an allow written this way lets the
    /// default port through only, which the author may not know. `:*` after the host says "any
    /// port" in both.
    static func defaultPortOnly(_ matcher: RequestMatcher, at pointer: JSONPointer) -> [LintWarning] {
        matcher.entries.compactMap { entry in
            guard case .urlPattern(let pattern) = entry.test, pattern.components.first?.matchesSpecialScheme == true,
                pattern.patternString("port") == ""
            else { return nil }
            return LintWarning(
                kind: "urlPatternDefaultPortOnly", pointer: pointer.appending("urlPatterns").appending(entry.index),
                message: "\(entry.written) names no port, so it matches the scheme's default port only. Through ext_authz "
                    + "(and nginx's /v1/authz) the Host port is the client's choice: a request with a port is also "
                    + "decided without it and a cancel wins, so as a cancel this entry holds on every port, but as an "
                    + "allow it lets the default port through only; write \":*\" after the host for any port "
                    + "(docs/security.md, \"Host ports\")")
        }
    }
}
