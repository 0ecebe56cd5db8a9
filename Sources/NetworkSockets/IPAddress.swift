public import CSockets
import Glibc

/// An IPv4 or IPv6 address: its 4 or 16 bytes in network order. The one parse and print of
/// an address for the listeners (the address to bind, a peer's address) and the CONNECT
/// tunnel (a pinned or resolved origin).
public struct IPAddress: Sendable, Hashable {
    /// The 4 (IPv4) or 16 (IPv6) bytes, in network order.
    public let bytes: [UInt8]

    /// An address from its 4 or 16 bytes; nil for any other length.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// An IPv4 or IPv6 literal ("192.0.2.1", "::1"), nothing looser: no brackets, no names.
    public init?(literal text: String) {
        var storage = [UInt8](repeating: 0, count: 16)
        if inet_pton(AF_INET, text, &storage) == 1 {
            bytes = Array(storage.prefix(4))
        } else if inet_pton(AF_INET6, text, &storage) == 1 {
            bytes = storage
        } else {
            return nil
        }
    }

    /// A numeric IPv4 or IPv6 address as a URL or a CONNECT target writes it: a literal, the
    /// IPv6 one in brackets or not.
    public init?(numeric text: String) {
        var text = Substring(text)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        self.init(literal: String(text))
    }

    /// The address the C layer wrote: `version` 4 or 6 (what `csock_address_bytes` returns),
    /// nil for 0 (another family).
    init?(version: Int32, raw: [UInt8]) {
        switch version {
        case 4: self.init(bytes: Array(raw.prefix(4)))
        case 6: self.init(bytes: Array(raw.prefix(16)))
        default: return nil
        }
    }

    /// The address of an IPv4 or IPv6 socket address (a resolver's answer, a peer); nil for
    /// another family.
    public init?(socketAddress: UnsafePointer<sockaddr>) {
        var raw = [UInt8](repeating: 0, count: 16)
        self.init(version: csock_address_bytes(socketAddress, &raw), raw: raw)
    }

    /// 4 or 6: the IP version, as the C layer and `ConnectionSharing.ClientSubnet` number it.
    public var version: Int32 { bytes.count == 4 ? 4 : 6 }

    /// The address as text ("127.0.0.1", "::1") for logs and per-address counts.
    public var text: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        var raw = bytes + [UInt8](repeating: 0, count: 16 - bytes.count)
        guard csock_address_text(version, &raw, &buffer, buffer.count) == 0 else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
