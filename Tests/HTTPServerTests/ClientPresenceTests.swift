import Dispatch
import Foundation
import Synchronization
import TestSelection
import Testing

@testable import HTTPServer

#if canImport(Glibc)
    import Glibc
#endif

/// ``ClientPresence``: how a deferred responder learns that its client left while the
/// connection is suspended (MHD does not poll a suspended connection, so it cannot tell).
@Suite(.tags(.live, .sanitizerRelevant)) struct ClientPresenceTests {
    /// A connected pair of stream sockets.
    static func socketPair() throws -> (Int32, Int32) {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { throw CocoaError(.fileReadUnknown) }
        return (fds[0], fds[1])
    }

    @Test func peerThatClosesIsGoneAndOneThatSendsIsNot() throws {
        let (mine, peer) = try Self.socketPair()
        defer { close(mine) }
        #expect(!ClientPresence.peerClosed(mine), "an idle peer is still there")
        var byte: UInt8 = 0x41
        #expect(send(peer, &byte, 1, 0) == 1)
        #expect(!ClientPresence.peerClosed(mine), "a pipelined byte is not a close")
        var read: UInt8 = 0
        #expect(recv(mine, &read, 1, Int32(MSG_DONTWAIT)) == 1, "the peek left the byte in place")
        close(peer)
        #expect(ClientPresence.peerClosed(mine))
        #expect(!ClientPresence.peerClosed(-1), "no socket: nothing to tell")
    }

    /// The server's side: a `.deferred` route sees its client leave while the
    /// connection is suspended, and a client that stays is not reported gone.
    @Test func deferredRouteSeesItsClientLeave() throws {
        let sawLeave = Atomic<Bool>(false)
        let sawStay = Atomic<Bool>(false)
        let watched = HTTPResponderResult.deferred { respond, client in
            Thread.detachNewThread {
                // Present while the client waits; then poll until it leaves (bounded).
                sawStay.store(!client.hasLeft, ordering: .relaxed)
                let deadline = Date().addingTimeInterval(20)
                while Date() < deadline, !client.hasLeft { Thread.sleep(forTimeInterval: 0.01) }
                sawLeave.store(client.hasLeft, ordering: .relaxed)
                respond(.text("late"))
            }
        }
        let (server, port) = try StreamingResponseTests.startServer(routes: ["/watched": watched])
        defer { server.shutdown(drainTimeout: .seconds(1)) }
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(port.bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(connected == 0)
        let request = Array("GET /watched HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        #expect(request.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, 0) } == request.count)
        Thread.sleep(forTimeInterval: 0.2)
        close(socket)
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, !sawLeave.load(ordering: .relaxed) { Thread.sleep(forTimeInterval: 0.01) }
        let stayed = sawStay.load(ordering: .relaxed)
        let left = sawLeave.load(ordering: .relaxed)
        #expect(stayed, "the client was reported gone while it waited")
        #expect(left, "the route never saw its client leave")
    }
}
