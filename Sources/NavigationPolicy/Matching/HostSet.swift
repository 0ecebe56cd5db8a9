/// A set of host patterns: exact hosts and `*.suffix` wildcards, compared in canonical form.
///
/// Both kinds are hash lookups, so a list of 100,000 hosts costs the same per request as a
/// list of three: exact hosts are one lookup, wildcards one lookup per parent domain.
struct HostSet: Sendable {
    /// Canonical hosts (`pay.example.com`, `127.0.0.1`, `[::1]`); substrings so a request's
    /// host is looked up as the slice of its URL it already is.
    private(set) var exact: Set<Substring> = []
    /// Registrable parts of `*.` patterns, without the `*.` (`example.com`); substrings so a
    /// request's parent domains can be looked up as slices of its host.
    private(set) var wildcardSuffixes: Set<Substring> = []

    mutating func insertExact(_ host: String) {
        if exact.insert(Substring(host)).inserted { fewExact.insert(Substring(host)) }
    }
    /// The exact hosts again while there are few: comparing lengths then bytes beats hashing.
    private var fewExact = FewKeys()
    mutating func insertWildcard(suffix: String) { wildcardSuffixes.insert(Substring(suffix)) }

    /// Whether `host` (already in match form) is listed, or is a subdomain of a wildcard on a label boundary.
    func contains(_ host: Substring) -> Bool {
        if fewExact.contains(host) ?? exact.contains(host) { return true }
        guard !wildcardSuffixes.isEmpty else { return false }
        return MatchHost.anyParentDomain(of: host) { wildcardSuffixes.contains($0) }
    }
}

/// Parsing of one `hosts` entry from config.
enum HostPattern {
    enum Parsed: Equatable {
        case exact(String)
        case wildcard(suffix: String)
    }

    /// Parses `pay.example.com`, `*.example.com`, `127.1`, `[::1]` or `::1` into canonical form,
    /// or returns the reason it is malformed.
    static func parse(_ pattern: String) -> Result<Parsed, PatternError> {
        if pattern.isEmpty { return .failure(PatternError("empty host pattern")) }
        let hasStar = pattern.utf8.contains(UInt8(ascii: "*"))
        if hasStar, pattern.hasPrefix("*.") {
            let rest = String(pattern.dropFirst(2))
            if rest.isEmpty || rest == "." { return .failure(PatternError("empty host pattern")) }
            if rest.utf8.contains(UInt8(ascii: "*")) {
                return .failure(PatternError("only one leading \"*.\" wildcard label is allowed"))
            }
            switch canonicalHost(rest) {
            case .success(.domain(let domain)): return .success(.wildcard(suffix: domain))
            case .success: return .failure(PatternError("a wildcard needs a domain name, not an IP address"))
            case .failure(let error): return .failure(error)
            }
        }
        if hasStar {
            return .failure(
                PatternError("\"*\" is only allowed as a leading \"*.\" label (\"*.example.com\"); list each other host exactly"))
        }
        return canonicalHost(pattern).map { .exact($0.text) }
    }

    private enum Canonical {
        case domain(String)
        case address(String)

        var text: String {
            switch self {
            case .domain(let text), .address(let text): text
            }
        }
    }

    private static func canonicalHost(_ input: String) -> Result<Canonical, PatternError> {
        // Byte scans: config lists can hold 100,000 hosts, and Character iteration is slow.
        let bytes = input.utf8
        if bytes.contains(where: {
            $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "@") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
        }) {
            return .failure(PatternError("a host pattern is a bare host name, not a URL"))
        }
        var text = input
        // A bare IPv6 literal is accepted without brackets; a port is not.
        let colons = bytes.reduce(0) { $0 + ($1 == UInt8(ascii: ":") ? 1 : 0) }
        let bracketed = bytes.first == UInt8(ascii: "[")
        if colons > 1, !bracketed {
            text = "[" + text + "]"
        } else if colons == 1, !bracketed {
            return .failure(PatternError("host patterns must not contain a port"))
        }
        let host: URLHost
        do {
            host = try URLHost.parse(text)
        } catch {
            return .failure(PatternError("invalid host: \(error)"))
        }
        let normalized = MatchHost.normalize(host)
        switch host {
        case .domain:
            if normalized.isEmpty || normalized == "." { return .failure(PatternError("empty host pattern")) }
            return .success(.domain(normalized))
        case .empty:
            return .failure(PatternError("empty host pattern"))
        default:
            return .success(.address(normalized))
        }
    }
}
