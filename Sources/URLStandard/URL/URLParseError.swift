/// The reason a string could not be parsed as a URL (or a URL host).
///
/// Every parse failure of the WHATWG basic URL parser maps to one of these kinds;
/// `description` gives a short human-readable reason suitable for logs and CLI output.
public struct URLParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The category of failure.
    public enum Kind: Sendable, Equatable {
        /// The input has no scheme and there is no usable base URL.
        case missingScheme
        /// An authority is present but its host is empty (e.g. `http://`, `http://user@/`, `http://:80`).
        case missingHost
        /// The host contains a code point the standard forbids (the byte is carried for diagnostics).
        case forbiddenHostCodePoint(UInt8)
        /// A bracketed host is not a valid IPv6 address.
        case invalidIPv6
        /// The host ends in a number but is not a valid IPv4 address.
        case invalidIPv4
        /// UTS #46 ToASCII rejected the domain.
        case invalidDomain
        /// The port contains a non-digit.
        case invalidPort
        /// The port is larger than 65535.
        case portOutOfRange
    }

    /// The category of failure.
    public let kind: Kind

    /// Creates an error of the given kind.
    public init(_ kind: Kind) { self.kind = kind }

    /// A short human-readable reason.
    public var description: String {
        switch kind {
        case .missingScheme: return "missing scheme (and no usable base URL)"
        case .missingHost: return "missing host"
        case .forbiddenHostCodePoint(let b):
            if b >= 0x21 && b < 0x7F {
                return "forbidden host code point '\(Character(Unicode.Scalar(b)))'"
            }
            let hex = String(b, radix: 16, uppercase: true)
            return "forbidden host code point U+\(String(repeating: "0", count: 4 - hex.count))\(hex)"
        case .invalidIPv6: return "invalid IPv6 address"
        case .invalidIPv4: return "invalid IPv4 address"
        case .invalidDomain: return "invalid domain name (IDNA ToASCII failed)"
        case .invalidPort: return "invalid port"
        case .portOutOfRange: return "port out of range"
        }
    }
}
