/// What a request host is to ranges and classes: an address, a name under `localhost`, or
/// another name (which no range or class covers).
package enum HostAddress {
    case address(IPAddress)
    case localhostName
    case name

    /// Classifies the host of `url`, whose match form is `host`.
    ///
    /// IPv4 hosts are read from the value the parser already computed; IPv6 hosts are folded
    /// (mapped and NAT64 to IPv4). An opaque host (`myapp://127.0.0.1/`) is read as a special
    /// URL's host would be, so a custom scheme cannot spell loopback past a class either.
    package init(_ host: Substring, of url: URLRecord) {
        switch url.hostTag {
        case .ipv4: self = .address(IPAddress(ipv4: url.ipv4Value))
        case .ipv6: self = url.host.flatMap(IPAddress.init).map { .address($0) } ?? .name
        case .domain: self = AddressClass.isLocalhostName(host) ? .localhostName : .name
        case .opaque: self.init(matchForm: host)
        case .none, .empty: self = .name
        }
    }

    /// Classifies a host already in match form (`127.0.0.1`, `[::1]`, `a.localhost`), as
    /// config entries are kept (for lint) and as an opaque host is read: through the special
    /// host parser, so its IPv4 forms and percent-escapes count.
    package init(matchForm host: Substring) {
        if AddressClass.isLocalhostName(host) {
            self = .localhostName
            return
        }
        guard let parsed = try? URLHost.parse(String(host)) else {
            self = .name
            return
        }
        if let address = IPAddress(parsed) {
            self = .address(address)
        } else if case .domain(let domain) = parsed, AddressClass.isLocalhostName(Substring(domain)) {
            // `myapp://%6cocalhost/`: an opaque host keeps its escapes; the special parser does not.
            self = .localhostName
        } else {
            self = .name
        }
    }

    /// Whether a range or class could cover this host (it is not just a name).
    package var isAddressOrLocalhost: Bool {
        if case .name = self { false } else { true }
    }

    /// Whether ranges or classes can hold for this URL's host at all: the cheap test the chain
    /// index uses to decide whether handlers filed by address are candidates.
    static func mayMatch(_ host: Substring, of url: URLRecord) -> Bool {
        switch url.hostTag {
        case .ipv4, .ipv6, .opaque: true
        case .domain: AddressClass.isLocalhostName(host)
        case .none, .empty: false
        }
    }
}
