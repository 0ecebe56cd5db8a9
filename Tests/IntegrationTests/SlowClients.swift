import Foundation

/// Many non-blocking connections from one source address, each sending a request head one
/// byte at a time: a slowloris, driven from one thread with poll(2).
final class SlowClients {
    private var sockets: [Int32] = []
    private var open: [Bool] = []
    private var position = 0
    private let head = Array(("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: " + String(repeating: "a", count: 200)).utf8)

    /// Sockets the server has closed so far.
    var closedByServer: Int { open.count(where: { !$0 }) }
    /// Sockets still open.
    var stillOpen: Int { open.count(where: { $0 }) }

    /// Connects `count` sockets from `source` (any 127.0.0.0/8 address works on Linux) to
    /// 127.0.0.1:`port`.
    init(count: Int, port: Int, source: String = "127.0.0.2") throws {
        for _ in 0..<count {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else { throw DaemonError("socket() failed: errno \(errno)") }
            sockets.append(fd)
            open.append(true)
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else { throw DaemonError("bind(\(source)) failed: errno \(errno)") }
            var remote = sockaddr_in()
            remote.sin_family = sa_family_t(AF_INET)
            remote.sin_port = in_port_t(UInt16(port).bigEndian)
            remote.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &remote) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 || errno == EINPROGRESS else { throw DaemonError("connect() failed: errno \(errno)") }
        }
    }

    deinit {
        for fd in sockets { close(fd) }
    }

    /// Sends the next byte of the head on every open socket.
    func drip() {
        let byte = head[position % head.count]
        position += 1
        for (index, fd) in sockets.enumerated() where open[index] {
            var value = byte
            let sent = send(fd, &value, 1, Int32(MSG_NOSIGNAL))
            if sent < 0 && errno != EAGAIN && errno != ENOTCONN { open[index] = false }
        }
        collectClosed()
    }

    /// Marks the sockets the server has closed (EOF or reset).
    func collectClosed() {
        var polled = sockets.enumerated().filter { open[$0.offset] }.map {
            pollfd(fd: $0.element, events: Int16(POLLIN), revents: 0)
        }
        guard !polled.isEmpty, poll(&polled, nfds_t(polled.count), 0) > 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 512)
        for entry in polled where entry.revents != 0 {
            let count = buffer.withUnsafeMutableBytes { recv(entry.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            let closed = count == 0 || (count < 0 && errno != EAGAIN)
            if closed, let index = sockets.firstIndex(of: entry.fd) { open[index] = false }
        }
    }
}

/// Raises this process's descriptor soft limit to the hard limit (2,200 test sockets plus
/// the test runner's own need more than a default 1024); returns the limit in force.
@discardableResult
func raiseDescriptorLimit() -> UInt64 {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
    if limit.rlim_cur < limit.rlim_max {
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
    return UInt64(limit.rlim_cur)
}
