import URLStandard

/// A `HOST:PORT` listen address: IPv4, `[IPv6]`, or `localhost`.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    public var description: String { host.contains(where: { $0 == ":" }) ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The longest text ``parse(_:)`` reads.
    static let maximumLength = 256

    public static func parse(_ text: String) -> Result<ListenAddress, ListenAddressError> {
        // Every listen address fits in this (a bracketed IPv6 address and a port are under 60
        // bytes); the checks below walk `Character`s, and one `Character` of a long run of
        // combining marks costs its square to compare (outside attack 16, F4).
        guard text.utf8.count <= maximumLength else {
            return .failure(ListenAddressError("longer than \(maximumLength) bytes: not a listen address"))
        }
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                return .failure(ListenAddressError("expected [IPv6]:PORT"))
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { return .failure(ListenAddressError("expected HOST:PORT")) }
            host = text[..<colon]
            // `::1:0` would read as host `::1`, port 0, and `::1` alone as host `:`, port 1: an
            // IPv6 address without brackets has no one reading, so none is guessed (attack round 8, F10).
            if host.contains(where: { $0 == ":" }) {
                return .failure(ListenAddressError("an IPv6 address goes in brackets before its port: [::1]:8080"))
            }
            portText = text[text.index(after: colon)...]
        }
        guard let port = UInt16(portText) else { return .failure(ListenAddressError("the port must be a number 0-65535")) }
        guard !host.isEmpty else { return .failure(ListenAddressError("missing host (use 127.0.0.1 or 0.0.0.0)")) }
        let hostText = host == "localhost" ? "127.0.0.1" : String(host)
        if isIPv4(hostText) { return .success(ListenAddress(host: hostText, port: port)) }
        // One spelling per IPv6 address (RFC 5952, as the URL Standard serializes it), so
        // `[0:0::1]` and `[::1]` are seen as one address when clashes are checked.
        guard hostText.contains(where: { $0 == ":" }), hostText.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }),
            let record = try? URLRecord.parse("http://[" + hostText + "]/"),
            case .ipv6 = record.host
        else { return .failure(ListenAddressError("the host must be an IP address or localhost")) }
        return .success(ListenAddress(host: String(record.hostname.dropFirst().dropLast()), port: port))
    }

    /// How two listeners would collide, or nil when both can bind: the same port (not 0,
    /// which picks a free one) on the same host, or on a wildcard host ("0.0.0.0", "::")
    /// that covers the other. The text completes "A … B" ("uses the same port as").
    public static func clash(_ first: ListenAddress, _ second: ListenAddress) -> String? {
        guard first.port != 0, first.port == second.port else { return nil }
        if first.host == second.host { return "is the same address as" }
        let wildcards: Set<String> = ["0.0.0.0", "::", "::0"]
        if wildcards.contains(first.host) || wildcards.contains(second.host) {
            return "overlaps (a wildcard host on the same port)"
        }
        return nil
    }

    /// Dotted decimal as `inet_pton` reads it: four parts 0-255, no leading zero (`127.000.0.1`
    /// is refused at bind time, so it is refused here, before the config is accepted).
    private static func isIPv4(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { part in
                !part.isEmpty && part.utf8.count <= 3 && part.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
                    && UInt8(part) != nil && (part.utf8.count == 1 || !part.hasPrefix("0"))
            }
    }
}
