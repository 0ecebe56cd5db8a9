import CCurl
import Glibc

/// Which addresses forwarded requests may connect to: the proxy's guard against being used
/// to reach hosts behind it (SSRF).
///
/// Checked on the address libcurl is about to connect to, after name resolution — a name is
/// no evidence, DNS or `/etc/hosts` can point any name at 127.0.0.1 — and again on the
/// connection a transfer is about to send on (a pooled one included), whatever the request
/// and whether or not it was decided. What counts as internal and which destinations the
/// operator pinned is the caller's policy; this module only asks it.
public struct DestinationGuard: Sendable {
    /// Whether a request for `url` may connect to `address` (4 or 16 bytes, network order)
    /// on `port`. Runs on the transfer thread for every new connection and every transfer:
    /// it must not block.
    public let admits: @Sendable (_ address: UnsafeRawBufferPointer, _ port: Int, _ url: String) -> Bool

    /// Creates a guard from its check.
    public init(admits: @escaping @Sendable (_ address: UnsafeRawBufferPointer, _ port: Int, _ url: String) -> Bool) {
        self.admits = admits
    }
}

extension UpstreamExchange {
    /// Asks the guard about `address` (0, 4 or 16 bytes: no IP address is never admitted) and
    /// records a refusal, so the transfer's failure is reported as a refusal, not a connect error.
    func admitsDestination(_ address: UnsafeRawBufferPointer, port: Int) -> Bool {
        guard let destinationGuard = loop.configuration.destinationGuard else { return true }
        if address.count == 4 || address.count == 16, destinationGuard.admits(address, port, request.url) { return true }
        refusedDestination = Self.describe(address)
        return false
    }

    /// The address as text for the log ("127.0.0.1", "::1"), or "a non-IP address".
    private static func describe(_ address: UnsafeRawBufferPointer) -> String {
        let family = address.count == 4 ? AF_INET : address.count == 16 ? AF_INET6 : 0
        guard family != 0, let base = address.baseAddress else { return "a non-IP address" }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(family, base, &text, socklen_t(text.count)) != nil else { return "an unprintable address" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// CURLOPT_OPENSOCKETFUNCTION (set only when a guard is configured): libcurl is about to
/// connect to `address`; the socket is created only when the guard admits it.
func curlOpenSocket(
    _ context: UnsafeMutableRawPointer?, _ purpose: curlsocktype, _ address: UnsafeMutablePointer<curl_sockaddr>?
) -> curl_socket_t {
    guard let context, let address else { return CURL_SOCKET_BAD }
    let exchange = Unmanaged<UpstreamExchange>.fromOpaque(context).takeUnretainedValue()
    var bytes: (UInt64, UInt64) = (0, 0)
    var port: Int32 = 0
    let admitted = withUnsafeMutableBytes(of: &bytes) { buffer -> Bool in
        guard let base = buffer.baseAddress else { return false }
        let count = Int(ccurl_sockaddr_ip(address, base.assumingMemoryBound(to: UInt8.self), &port))
        return exchange.admitsDestination(UnsafeRawBufferPointer(rebasing: buffer[..<count]), port: Int(port))
    }
    return admitted ? ccurl_open_socket(address) : CURL_SOCKET_BAD
}

/// The second check, from CURLOPT_PREREQFUNCTION: the address of the connection (new or
/// pooled) a transfer is about to send its request on.
func connectedDestinationAdmitted(_ exchange: UpstreamExchange, primaryIP: UnsafePointer<CChar>?, port: Int) -> Bool {
    guard exchange.loop.configuration.destinationGuard != nil else { return true }
    guard let primaryIP else { return exchange.admitsDestination(UnsafeRawBufferPointer(start: nil, count: 0), port: port) }
    var bytes: (UInt64, UInt64) = (0, 0)
    return withUnsafeMutableBytes(of: &bytes) { buffer -> Bool in
        guard let base = buffer.baseAddress else { return false }
        let count = Int(ccurl_parse_ip(primaryIP, base.assumingMemoryBound(to: UInt8.self)))
        return exchange.admitsDestination(UnsafeRawBufferPointer(rebasing: buffer[..<count]), port: port)
    }
}
