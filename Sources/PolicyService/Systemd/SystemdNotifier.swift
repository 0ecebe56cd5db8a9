import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Tells the service manager about the daemon's state: the `sd_notify` protocol, spoken
/// directly (one datagram per state change on the `AF_UNIX` socket named by
/// `$NOTIFY_SOCKET`), so no libsystemd is needed.
///
/// systemd starts `Type=notify` units as "activating" until `READY=1`, holds `systemctl
/// reload` until the `READY=1` that follows `RELOADING=1`, and with `WatchdogSec=` restarts
/// the service when `WATCHDOG=1` pings stop.
public final class SystemdNotifier: Sendable {
    /// Why `$NOTIFY_SOCKET` or `$WATCHDOG_USEC` cannot be used.
    public struct SetupError: Error, Sendable, CustomStringConvertible {
        /// What is wrong, naming the variable.
        public let description: String
    }

    private let socket: Int32
    private let address: [UInt8]
    /// Send failures are logged once, not per ping.
    private let reportedFailure = Atomic<Bool>(false)
    /// Half the watchdog timeout, as systemd recommends; nil when no watchdog is asked for.
    public let watchdogInterval: Duration?

    private init(socket: Int32, address: [UInt8], watchdogInterval: Duration?) {
        self.socket = socket
        self.address = address
        self.watchdogInterval = watchdogInterval
    }

    deinit { close(socket) }

    /// The notifier `environment` asks for: nil without `$NOTIFY_SOCKET` (not run by systemd
    /// as `Type=notify`). `$NOTIFY_SOCKET` is an absolute path or `@name` (an abstract
    /// socket); `$WATCHDOG_USEC` a positive number of microseconds, used only when
    /// `$WATCHDOG_PID` is unset or names this process.
    public static func fromEnvironment(_ environment: [String: String], pid: Int32? = nil) -> Result<
        SystemdNotifier?, SetupError
    > {
        guard let path = environment["NOTIFY_SOCKET"], !path.isEmpty else { return .success(nil) }
        var address = Array(path.utf8)
        if address.first == UInt8(ascii: "@") {
            address[0] = 0
        } else if address.first != UInt8(ascii: "/") {
            return .failure(SetupError(description: "NOTIFY_SOCKET \"\(path)\" is neither an absolute path nor @abstract"))
        }
        let capacity = MemoryLayout.size(ofValue: sockaddr_un().sun_path)
        guard address.count < capacity else {
            return .failure(SetupError(description: "NOTIFY_SOCKET is longer than \(capacity - 1) bytes"))
        }
        var interval: Duration?
        if let text = environment["WATCHDOG_USEC"], !text.isEmpty {
            let forUs = environment["WATCHDOG_PID"].map { Int32($0) == (pid ?? getpid()) } ?? true
            guard let microseconds = Int64(text), microseconds > 0 else {
                return .failure(SetupError(description: "WATCHDOG_USEC \"\(text)\" is not a positive number of microseconds"))
            }
            if forUs { interval = .microseconds(microseconds / 2) }
        }
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            return .failure(
                SetupError(description: "cannot create a socket for NOTIFY_SOCKET: \(String(cString: strerror(errno)))"))
        }
        return .success(SystemdNotifier(socket: fd, address: address, watchdogInterval: interval))
    }

    /// Sends one state datagram (`READY=1`, `RELOADING=1\nMONOTONIC_USEC=…`); false when the
    /// manager's socket could not take it (the first failure is passed to `onFailure`).
    @discardableResult
    public func notify(_ state: String, onFailure: (String) -> Void = { _ in }) -> Bool {
        var remote = sockaddr_un()
        remote.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &remote.sun_path) { path in
            for (index, byte) in address.enumerated() where index < path.count { path[index] = byte }
        }
        // An abstract name is exactly as long as given: no trailing NUL counted.
        let length = socklen_t(MemoryLayout<sa_family_t>.size + address.count + (address.first == 0 ? 0 : 1))
        let message = Array(state.utf8)
        let sent = message.withUnsafeBytes { bytes in
            withUnsafePointer(to: &remote) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(socket, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), $0, length)
                }
            }
        }
        if sent == message.count { return true }
        if !reportedFailure.exchange(true, ordering: .relaxed) {
            onFailure("sending to NOTIFY_SOCKET failed: \(String(cString: strerror(errno)))")
        }
        return false
    }

    /// `RELOADING=1` with the monotonic time, which `Type=notify-reload` requires and plain
    /// `Type=notify` accepts.
    public static func reloadingMessage() -> String {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let microseconds = Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1_000
        return "RELOADING=1\nMONOTONIC_USEC=\(microseconds)"
    }
}
