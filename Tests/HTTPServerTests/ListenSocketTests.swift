import NetworkSockets
import TestSelection
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The one socket layer (`NetworkSockets`) every listener binds, adopts and accepts with: the
/// HTTP listeners (non-blocking, libmicrohttpd accepts) and the gRPC listener (blocking, its
/// accept thread), and the addresses the CONNECT tunnel pins and resolves.
@Suite(.tags(.live, .sanitizerRelevant)) struct ListenSocketTests {
    /// A blocking TCP client connected to `address`:`port` (nil when the connect failed).
    static func connect(_ address: IPAddress, _ port: UInt16) -> Int32? {
        let socket: Int32
        switch StreamSocket.startConnecting(to: address, port: port) {
        case .failed: return nil
        case .connected(let connected): return connected
        case .inProgress(let connecting): socket = connecting
        }
        var entry = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
        guard poll(&entry, 1, 5_000) == 1, StreamSocket.connectResult(of: socket) == 0 else {
            close(socket)
            return nil
        }
        return socket
    }

    /// 127.0.0.1.
    let loopback: IPAddress

    init() throws {
        loopback = try #require(IPAddress(literal: "127.0.0.1"))
    }

    @Test func portZeroPicksAPortAndAcceptNamesThePeer() throws {
        let listen = try ListenSocket.open(address: loopback, port: 0, backlog: 8, nonBlocking: false).get()
        defer { close(listen.descriptor) }
        #expect(listen.port > 0)
        let client = try #require(Self.connect(loopback, listen.port))
        defer { close(client) }
        guard case .connection(let accepted, let peer) = ListenSocket.accept(on: listen.descriptor) else {
            Issue.record("no connection accepted")
            return
        }
        defer { close(accepted) }
        #expect(peer?.text == "127.0.0.1")
        #expect(fcntl(accepted, F_GETFD) & FD_CLOEXEC != 0, "a connection must not leak into processes the daemon starts")
    }

    @Test func aTakenPortIsAddressInUse() throws {
        let first = try ListenSocket.open(address: loopback, port: 0, backlog: 8, nonBlocking: true).get()
        defer { close(first.descriptor) }
        let second = ListenSocket.open(address: loopback, port: first.port, backlog: 8, nonBlocking: true)
        guard case .failure(let error) = second else {
            if case .success(let socket) = second { close(socket.descriptor) }
            Issue.record("bound a port another socket listens on")
            return
        }
        #expect(error.kind == .addressInUse)
        #expect(error.reason == String(cString: strerror(EADDRINUSE)))
    }

    /// "::" takes IPv4 clients too (`IPV6_V6ONLY` off), for the HTTP and the gRPC listeners alike.
    @Test func theIPv6AnyAddressIsDualStack() throws {
        let any = try #require(IPAddress(literal: "::"))
        guard case .success(let listen) = ListenSocket.open(address: any, port: 0, backlog: 8, nonBlocking: false) else {
            return  // no IPv6 on this host: nothing to hold
        }
        defer { close(listen.descriptor) }
        let client = try #require(Self.connect(loopback, listen.port), "an IPv4 client reaches \"::\"")
        defer { close(client) }
        guard case .connection(let accepted, let peer) = ListenSocket.accept(on: listen.descriptor) else {
            Issue.record("no connection accepted")
            return
        }
        defer { close(accepted) }
        #expect(peer?.text == "::ffff:127.0.0.1")
    }

    /// An inherited (systemd) socket: checked, its port read, and set to the listener's mode.
    @Test func adoptChecksTheDescriptorAndSetsItsMode() throws {
        let listen = try ListenSocket.open(address: loopback, port: 0, backlog: 8, nonBlocking: true).get()
        defer { close(listen.descriptor) }
        let blocking = try ListenSocket.adopt(listen.descriptor, nonBlocking: false).get()
        #expect(blocking.port == listen.port)
        #expect(fcntl(listen.descriptor, F_GETFL) & O_NONBLOCK == 0, "the gRPC accept thread waits in accept(2)")
        _ = try ListenSocket.adopt(listen.descriptor, nonBlocking: true).get()
        #expect(fcntl(listen.descriptor, F_GETFL) & O_NONBLOCK != 0, "libmicrohttpd's epoll loops need non-blocking")

        let udp = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(udp) }
        guard case .failure(let notListening) = ListenSocket.adopt(udp, nonBlocking: true) else {
            Issue.record("adopted a UDP socket")
            return
        }
        #expect(notListening.kind == .notAListeningSocket)
        #expect(notListening.reason == "not a listening TCP socket")
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        defer { ends.forEach { close($0) } }
        guard case .failure(let notSocket) = ListenSocket.adopt(ends[0], nonBlocking: true) else {
            Issue.record("adopted a pipe")
            return
        }
        #expect(notSocket.kind == .systemError)
        #expect(notSocket.errorNumber == ENOTSOCK)
    }

    @Test func aStoppedSocketRefusesAtOnce() throws {
        let listen = try ListenSocket.open(address: loopback, port: 0, backlog: 8, nonBlocking: true).get()
        defer { close(listen.descriptor) }
        #expect(ListenSocket.refuseNewConnections(listen.descriptor))
        #expect(Self.connect(loopback, listen.port) == nil)
    }

    @Test func addressesParseStrictlyAndPrint() throws {
        #expect(IPAddress(literal: "192.0.2.1")?.bytes == [192, 0, 2, 1])
        #expect(IPAddress(literal: "192.0.2.1")?.version == 4)
        #expect(IPAddress(literal: "2001:db8::1")?.text == "2001:db8::1")
        #expect(IPAddress(literal: "2001:db8::1")?.version == 6)
        #expect(IPAddress(literal: "[::1]") == nil, "a listen address is a bare literal")
        #expect(IPAddress(numeric: "[::1]")?.text == "::1", "a CONNECT target may bracket it")
        #expect(IPAddress(literal: "localhost") == nil)
        #expect(IPAddress(literal: "192.0.2") == nil)
        #expect(IPAddress(bytes: [1, 2, 3]) == nil)
        var v4 = sockaddr_in()
        v4.sin_family = sa_family_t(AF_INET)
        v4.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let read = withUnsafePointer(to: &v4) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { IPAddress(socketAddress: $0) }
        }
        #expect(read?.text == "127.0.0.1")
    }
}
