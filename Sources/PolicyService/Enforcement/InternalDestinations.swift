import Glibc
import NavigationPolicy
import PolicyProxy

/// The proxy's rule for where forwarded requests may connect: never to an internal address
/// (``AddressClass/internal``: loopback, unspecified, private, link-local) unless the operator
/// pinned that destination.
///
/// Judged on the address libcurl connects to, after resolution (see ``DestinationGuard``), as
/// Smokescreen does: a policy on names alone is dodged by `0.0.0.0`, `[::]`, `127.1.2.3`,
/// `foo.localhost`, or any name DNS or `/etc/hosts` points at loopback. Pinned, and so exempt:
/// the reverse proxy's `proxy.upstream` (every forward there is the operator's choice), and a
/// `proxy.resolve` entry, for a request to exactly that `host:port` connecting to exactly the
/// pinned address and port — so `http://127.0.0.1:PORT/` does not ride on a pin for
/// `app.test:PORT`, and a name libcurl read differently from the pin's cannot reach elsewhere.
struct InternalDestinations: Sendable {
    /// `proxy.resolve` pins: lower-case `host:port` → the pinned address and port.
    let pins: [String: (address: IPAddress, port: Int)]
    /// Reverse mode: `proxy.upstream` + "/", the start of every URL the proxy forwards.
    let upstreamPrefix: String?

    /// The rule for `settings`, or nil when `proxy.allowInternalDestinations` turns it off.
    init?(_ settings: ProxySettings) {
        guard !settings.allowInternalDestinations else { return nil }
        var pins: [String: (address: IPAddress, port: Int)] = [:]
        for entry in settings.resolve {
            // An entry whose address libcurl cannot read pins nothing, so it exempts nothing.
            guard let colon = entry.hostAndPort.lastIndex(of: ":"),
                let port = Int(entry.hostAndPort[entry.hostAndPort.index(after: colon)...]),
                let address = Self.numericAddress(entry.address)
            else { continue }
            pins[entry.hostAndPort.lowercased()] = (address, port)
        }
        self.pins = pins
        upstreamPrefix = settings.upstream.map { $0 + "/" }
    }

    /// ``AddressClass/internal``'s ranges, built once: the check runs for every forward (the
    /// class builds its list on each call).
    private static let internalRanges = AddressClass.internal.ranges

    /// Whether a request for `url` may connect to `address` on `port`.
    func admits(_ address: IPAddress, port: Int, url: String) -> Bool {
        guard Self.internalRanges.contains(where: { $0.contains(address) }) else { return true }
        if let upstreamPrefix, url.hasPrefix(upstreamPrefix) { return true }
        guard !pins.isEmpty, let key = Self.hostAndPort(of: url), let pin = pins[key] else { return false }
        return pin.address == address && pin.port == port
    }

    /// The guard the upstream client runs, or nil when the rule is off.
    static func destinationGuard(for settings: ProxySettings) -> DestinationGuard? {
        guard let rule = InternalDestinations(settings) else { return nil }
        return DestinationGuard { bytes, port, url in
            guard let address = IPAddress(networkBytes: bytes) else { return false }
            return rule.admits(address, port: port, url: url)
        }
    }

    /// `host:port` of an http(s) URL as a pin is keyed (lower-case host, the scheme's default
    /// port when none is written), or nil when it does not parse.
    static func hostAndPort(of url: String) -> String? {
        guard let record = try? URLRecord.parse(url), !record.hostname.isEmpty else { return nil }
        let port = record.port.map(Int.init) ?? (record.scheme == "https" ? 443 : 80)
        return record.hostname.lowercased() + ":" + String(port)
    }

    /// An address as libcurl reads a `CURLOPT_RESOLVE` entry: numeric IPv4 or IPv6 (bracketed
    /// or not), nothing looser (`127.1` is not an address there).
    static func numericAddress(_ text: String) -> IPAddress? {
        var text = Substring(text)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        var bytes: (UInt64, UInt64) = (0, 0)
        return withUnsafeMutableBytes(of: &bytes) { buffer -> IPAddress? in
            guard let base = buffer.baseAddress else { return nil }
            if inet_pton(AF_INET, String(text), base) == 1 { return IPAddress(networkBytes: buffer.prefix(4)) }
            if inet_pton(AF_INET6, String(text), base) == 1 { return IPAddress(networkBytes: buffer) }
            return nil
        }
    }
}
