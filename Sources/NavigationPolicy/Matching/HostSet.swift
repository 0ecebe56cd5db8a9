/// A set of host patterns: exact hosts, `*.suffix` wildcards, CIDR ranges and named classes,
/// compared in canonical form.
///
/// Exact hosts and wildcards are one lookup (exact hosts) or one per parent domain (wildcards):
/// byte compares against up to four keys, hash lookups past that, so a list of 100,000 hosts
/// costs the same per request as a list of three. Ranges and classes are only consulted when
/// the request host is an IP address (or, for `@loopback`/`@internal`, a name under
/// `localhost`), so a name like `app.example.com` never pays for them.
package struct HostSet: Sendable {
    /// Canonical hosts (`pay.example.com`, `127.0.0.1`, `[::1]`), looked up with a request's
    /// host as the slice of its URL it already is; few (nearly always one) are kept unhashed.
    package private(set) var exact = FewKeys()
    /// Registrable parts of `*.` patterns, without the `*.` (`example.com`), looked up with a
    /// request's parent domains as slices of its host; few are kept unhashed.
    package private(set) var wildcardSuffixes = FewKeys()
    /// Ranges and classes, behind one reference that stays nil for name-only sets: every
    /// handler's matcher holds a `HostSet?` inline, and three more stored fields cost a
    /// 100,000-handler chain ~3 MB of resident memory for entries nearly none of them have.
    private var addresses: AddressEntries?
    /// Exact hosts and wildcard suffixes read in place from a compiled policy image (large lists
    /// only; ranges and classes always stay above), or nil for a set built from JSON.
    package private(set) var mapped: MappedHostNames?

    /// Every address range listed: CIDR entries and the ranges of `@` classes, in config order.
    package var ranges: [AddressRange] { addresses?.ranges ?? [] }
    /// The `@` classes listed, for summaries and lint (their ranges are in ``ranges``).
    package var classes: [AddressClass] { addresses?.classes ?? [] }
    /// Whether a listed class covers `localhost`, `*.localhost` and `localhost.`.
    package var coversLocalhostNames: Bool { addresses?.coversLocalhostNames ?? false }

    mutating func insertExact(_ host: String) { exact.insert(host) }
    /// Adds the names of an image's tables to the names inserted one by one.
    mutating func attach(_ names: MappedHostNames) { mapped = names }
    mutating func insertWildcard(suffix: String) { wildcardSuffixes.insert(suffix) }
    mutating func insertRange(_ range: AddressRange) {
        addresses = AddressEntries(ranges: ranges + [range], classes: classes, coversLocalhostNames: coversLocalhostNames)
    }
    mutating func insertClass(_ addressClass: AddressClass) {
        guard !classes.contains(addressClass) else { return }
        addresses = AddressEntries(
            ranges: ranges + addressClass.ranges, classes: classes + [addressClass],
            coversLocalhostNames: coversLocalhostNames || addressClass.coversLocalhostNames)
    }

    /// Whether the set has entries that match by address (ranges, classes) rather than by name.
    package var hasAddressEntries: Bool { addresses != nil }

    /// Whether a request's host is listed, is a subdomain of a wildcard on a label boundary, or
    /// lies in a listed range or class. `host` is the match form of `url`'s host.
    func contains(_ host: Substring, of url: URLRecord) -> Bool {
        if contains(host) { return true }
        guard hasAddressEntries else { return false }
        return containsByAddress(host, of: url)
    }

    /// Whether `host` (already in match form) is listed, or is a subdomain of a wildcard on a
    /// label boundary; ranges and classes are not consulted (lint compares names with this).
    package func contains(_ host: Substring) -> Bool {
        if exact.contains(host) { return true }
        if let mapped {
            if mapped.exact.contains(host) { return true }
            if mapped.wildcardSuffixes.count > 0,
                MatchHost.anyParentDomain(of: host, { mapped.wildcardSuffixes.contains($0) })
            {
                return true
            }
        }
        guard !wildcardSuffixes.isEmpty else { return false }
        return MatchHost.anyParentDomain(of: host) { wildcardSuffixes.contains($0) }
    }

    /// The range and class part of ``contains(_:of:)``.
    func containsByAddress(_ host: Substring, of url: URLRecord) -> Bool {
        contains(HostAddress(host, of: url))
    }

    /// Whether a classified host is in a listed range or class.
    package func contains(_ host: HostAddress) -> Bool {
        switch host {
        case .address(let address): ranges.contains { $0.contains(address) }
        case .localhostName: coversLocalhostNames
        case .name: false
        }
    }
}

/// The range and class entries of a ``HostSet``, frozen once built (config time only).
final class AddressEntries: Sendable {
    let ranges: [AddressRange]
    let classes: [AddressClass]
    let coversLocalhostNames: Bool

    init(ranges: [AddressRange], classes: [AddressClass], coversLocalhostNames: Bool) {
        self.ranges = ranges
        self.classes = classes
        self.coversLocalhostNames = coversLocalhostNames
    }
}

/// Parsing of one `hosts` entry from config.
enum HostPattern {
    enum Parsed: Equatable {
        case exact(String)
        case wildcard(suffix: String)
        /// A CIDR range: `10.0.0.0/8`, `fd00::/8`.
        case range(AddressRange)
        /// A named class: `@loopback`, `@internal`.
        case addressClass(AddressClass)
    }

    /// Parses `pay.example.com`, `*.example.com`, `127.1`, `[::1]`, `::1`, `10.0.0.0/8` or
    /// `@loopback` into canonical form, or returns the reason it is malformed.
    static func parse(_ pattern: String) -> Result<Parsed, PatternError> {
        // Plain lower-case names (nearly every entry of a big list) skip the host parser.
        // Fast twin kept (issue 44): without it, loading and compiling generate-rules.py 100000 costs +10.1% instructions.
        if let host = plainDomain(pattern) { return .success(.exact(host)) }
        // Bytes, not `hasPrefix`/`dropFirst` (Characters: `.` and a combining mark are one):
        // the rest must then be plain ASCII, where bytes and Characters agree.
        if pattern.utf8.starts(with: "*.".utf8), let suffix = plainDomain(Substring(pattern.utf8.dropFirst(2))) {
            return .success(.wildcard(suffix: suffix))
        }
        return parseThroughHostParser(pattern)
    }

    /// Whether an entry is written as a CIDR range (`address/digits`, one `/`); anything else
    /// with a `/` (`https://pay.example.com/`, `pay.example.com/`) gets the "not a URL" error.
    private static func looksLikeRange(_ pattern: String) -> Bool {
        let bytes = pattern.utf8
        guard let slash = bytes.firstIndex(of: UInt8(ascii: "/")) else { return false }
        let length = bytes[bytes.index(after: slash)...]
        return !length.isEmpty && length.allSatisfy { $0 &- UInt8(ascii: "0") < 10 }
    }

    /// ``parse(_:)`` without the plain-name shortcut: every pattern through the WHATWG host parser.
    static func parseThroughHostParser(_ pattern: String) -> Result<Parsed, PatternError> {
        if pattern.isEmpty { return .failure(PatternError("empty host pattern")) }
        if pattern.utf8.first == UInt8(ascii: "@") {
            guard let addressClass = AddressClass(entry: pattern) else {
                return .failure(
                    PatternError("unknown host class; the classes are \(AddressClass.entriesList)"))
            }
            return .success(.addressClass(addressClass))
        }
        if looksLikeRange(pattern), let range = AddressRange.parse(pattern) {
            return range.map { .range($0) }
        }
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

    /// The canonical form of a host that is already a lower-case ASCII domain name (letters,
    /// digits, `-`, `_`, `.`, not ending in a number), or nil for anything else.
    ///
    /// For such a name the WHATWG host parser changes nothing (no upper case, no percent, no
    /// non-ASCII for IDNA, no forbidden byte, not IPv4) and the match form only drops one
    /// trailing dot, so the answer is the input itself; this skips the parser's copies,
    /// which cost ~2k instructions for each of a 100k-host config's entries. Every other
    /// input (and the empty names `.` and `..`) takes the full path, which reports errors.
    static func plainDomain(_ pattern: Substring) -> String? {
        var pattern = pattern
        return pattern.withUTF8 { bytes in
            plainDomainLength(bytes).map { String(decoding: UnsafeBufferPointer(rebasing: bytes[..<$0]), as: UTF8.self) }
        }
    }

    /// ``plainDomain(_:)-(Substring)`` returning `pattern` itself, uncopied, when it has no trailing dot.
    static func plainDomain(_ pattern: String) -> String? {
        var text = pattern
        let length = text.withUTF8 { plainDomainLength($0) }
        guard let length else { return nil }
        return length == pattern.utf8.count ? pattern : String(Substring(pattern.utf8.prefix(length)))
    }

    /// How many leading bytes of a plain domain are its match form (all but one trailing dot).
    static func plainDomainLength(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let first = bytes.first, bytes.allSatisfy(isPlainDomainByte), !IPv4Address.endsInANumber(bytes)
        else { return nil }
        let length = bytes.count > 1 && bytes[bytes.count - 1] == UInt8(ascii: ".") ? bytes.count - 1 : bytes.count
        // `.` and `..` are empty names (`.` once the trailing dot goes): the full path's error.
        guard length > 1 || first != UInt8(ascii: ".") else { return nil }
        return length
    }

    private static func isPlainDomainByte(_ byte: UInt8) -> Bool {
        (byte &- UInt8(ascii: "a") < 26) || (byte &- UInt8(ascii: "0") < 10) || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
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
