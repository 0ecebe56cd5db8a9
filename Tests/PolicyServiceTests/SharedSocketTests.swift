import Glibc
import Testing

@testable import PolicyService

/// Issue 38, item 14: one socket passed as both `api` and `admin` served the admin routes on
/// the API's address. The check runs on real descriptors.
@Suite("socket activation: one socket under two names")
struct SharedSocketTests {
    /// A listening TCP socket on 127.0.0.1 (a free port, or `port`).
    static func listening(port: UInt16 = 0, reusePort: Bool = false) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        var one: Int32 = 1
        if reusePort { setsockopt(descriptor, SOL_SOCKET, SO_REUSEPORT, &one, socklen_t(MemoryLayout<Int32>.size)) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(bound == 0)
        try #require(listen(descriptor, 8) == 0)
        return descriptor
    }

    static func port(_ descriptor: Int32) -> UInt16 {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return UInt16(bigEndian: address.sin_port)
    }

    @Test("a socket and its duplicate, or two sockets on one address, are refused; two sockets are not")
    func sharedSockets() throws {
        let api = try Self.listening(reusePort: true)
        let duplicate = dup(api)
        let sameAddress = try Self.listening(port: Self.port(api), reusePort: true)
        let other = try Self.listening()
        defer { for descriptor in [api, duplicate, sameAddress, other] { close(descriptor) } }
        let shared = SocketActivation(api: api, admin: duplicate).sharedSocket()
        #expect(shared?.description.contains(#"the sockets named "admin" and "api" are one listening socket"#) == true)
        #expect(SocketActivation(api: api, proxy: sameAddress).sharedSocket() != nil)
        #expect(SocketActivation(api: api, admin: other).sharedSocket() == nil)
        #expect(SocketActivation(api: api).sharedSocket() == nil)
    }
}
