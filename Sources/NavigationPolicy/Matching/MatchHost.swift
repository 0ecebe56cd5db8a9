/// The comparison form of hosts, shared by requests and config patterns.
package enum MatchHost {
    /// Serialized host, ASCII lower case, one trailing dot removed.
    ///
    /// Domains are already lower case after IDNA; opaque hosts (custom schemes) are not,
    /// and `pay.example.com.` names the same DNS host as `pay.example.com`.
    /// An IPv6 literal that embeds an IPv4 address the client will actually connect to is
    /// compared as that IPv4 address (see ``embeddedIPv4(_:)``).
    static func normalize(_ host: URLHost) -> String {
        switch host {
        case .domain(let domain): return stripTrailingDot(domain)
        case .ipv6(let pieces): return embeddedIPv4(pieces).map(IPv4Address.serialize) ?? host.serialized
        default: return asciiLowercased(host.serialized)
        }
    }

    /// The match host of a parsed URL, read from its serialization without building a ``URLHost``
    /// (except for IPv6 literals, which are rare and must be checked for an embedded IPv4).
    package static func normalize(_ url: URLRecord) -> String? {
        form(of: url).map(String.init)
    }

    /// ``normalize(_:)`` as a slice of the URL's `href` wherever the serialized host already is
    /// its match form (domains are lower case after IDNA; IPv4 hosts are digits), so the common
    /// request allocates nothing here. Upper case (opaque hosts) is still folded, into a copy.
    package static func form(of url: URLRecord) -> Substring? {
        switch url.hostTag {
        case .none: return nil
        case .ipv6: return url.host.map { Substring(normalize($0)) }
        case .domain: return sliceOrLowercased(url, stripsTrailingDot: true)
        default: return sliceOrLowercased(url, stripsTrailingDot: false)
        }
    }

    /// One pass over the host's bytes decides whether the slice of href is already the form.
    private static func sliceOrLowercased(_ url: URLRecord, stripsTrailingDot: Bool) -> Substring {
        let (hasUpper, endsInDot) = url.withBytes(url.hostStart, url.hostEnd) { bytes in
            (bytes.contains { $0 &- UInt8(ascii: "A") < 26 }, bytes.count > 1 && bytes.last == UInt8(ascii: "."))
        }
        let end = stripsTrailingDot && endsInDot ? url.hostEnd - 1 : url.hostEnd
        let slice = url.slice(url.hostStart, end)
        return hasUpper ? asciiLowercased(slice) : slice
    }

    /// The IPv4 address inside an IPv6 literal that reaches that IPv4 host, or nil.
    ///
    /// - `::ffff:a.b.c.d` (IPv4-mapped, RFC 4291 §2.5.5.2): browsers and libcurl open an IPv4
    ///   connection to `a.b.c.d`, so `http://[::ffff:127.0.0.1]/` must meet a rule on `127.0.0.1`.
    /// - `64:ff9b::a.b.c.d` (the NAT64 well-known prefix, RFC 6052): on NAT64 networks, common
    ///   on mobile carriers where apps run, it is translated to `a.b.c.d`.
    ///
    /// - `::ffff:0:a.b.c.d` (IPv4-translated, RFC 2765 SIIT): a stateless translator sends it
    ///   to `a.b.c.d` (found allowed under `@internal` by the round-3 outside attack; Linux
    ///   itself does not connect it anywhere, so folding it only fails closed).
    ///
    /// IPv4-compatible `::a.b.c.d` is deprecated and connects to no IPv4 host (Linux and
    /// curl refuse it), so it stays an IPv6 address.
    static func embeddedIPv4(_ pieces: [UInt16]) -> UInt32? {
        guard pieces.count == 8 else { return nil }
        let mapped = pieces[0..<5].allSatisfy { $0 == 0 } && pieces[5] == 0xFFFF
        let translated = pieces[0..<4].allSatisfy { $0 == 0 } && pieces[4] == 0xFFFF && pieces[5] == 0
        let nat64 = pieces[0] == 0x0064 && pieces[1] == 0xFF9B && pieces[2..<6].allSatisfy { $0 == 0 }
        guard mapped || translated || nat64 else { return nil }
        return UInt32(pieces[6]) << 16 | UInt32(pieces[7])
    }

    private static func stripTrailingDot(_ domain: String) -> String {
        guard domain.utf8.count > 1, domain.utf8.last == UInt8(ascii: ".") else { return domain }
        return String(domain.dropLast())
    }

    /// Whether `matches` holds for a proper parent domain, nearest first: for `a.b.example.com`
    /// it is asked about `b.example.com`, `example.com`, `com` — the `*.` wildcards that cover
    /// the host. Slices, not new strings: this runs for every request.
    package static func anyParentDomain(of host: Substring, _ matches: (Substring) -> Bool) -> Bool {
        var rest = host
        while let dot = rest.firstUTF8Index(of: UInt8(ascii: "."), from: rest.startIndex) {
            rest = rest[rest.utf8.index(after: dot)...]
            if rest.isEmpty { return false }
            if matches(rest) { return true }
        }
        return false
    }

    /// ``anyParentDomain(of:_:)`` over a host's bytes (the chain index's lookups, read in place):
    /// the part after each `.`, longest first, until `matches` returns true.
    static func anyParentDomain(of host: UnsafeBufferPointer<UInt8>, _ matches: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        var offset = 0
        while offset < host.count {
            if host[offset] == UInt8(ascii: ".") {
                guard offset + 1 < host.count else { return false }
                if matches(UnsafeBufferPointer(rebasing: host[(offset + 1)...])) { return true }
            }
            offset += 1
        }
        return false
    }
}
