#if canImport(Glibc)
    import Glibc
#endif

/// How this server reads a suspended connection's ``ClientPresence``: libmicrohttpd neither
/// reads nor polls a suspended connection, and `MHD_REQUEST_TERMINATED_CLIENT_ABORT` comes only
/// after the work; one `poll` with no wait per ask tells at once.
extension ClientPresence {
    /// `POLLRDHUP` (Linux): the peer shut down its writing side. Not in Glibc's Swift module,
    /// which is imported without `_GNU_SOURCE`.
    private static let peerHangUp = Int16(0x2000)

    /// Whether the peer of `socket` closed or reset the connection; reads nothing (a byte a
    /// pipelining client already sent stays for MHD).
    static func peerClosed(_ socket: Int32) -> Bool {
        guard socket >= 0 else { return false }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN) | peerHangUp, revents: 0)
        guard poll(&descriptor, 1, 0) > 0 else { return false }
        let gone = Int16(POLLHUP) | Int16(POLLERR) | Int16(POLLNVAL) | peerHangUp
        if descriptor.revents & gone != 0 { return true }
        // Readable without a hang-up flag: end of stream only when a peek reads nothing.
        var byte: UInt8 = 0
        return recv(socket, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)) == 0
    }
}
