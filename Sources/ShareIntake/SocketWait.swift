import Foundation

/// Waiting for a libpq socket with a deadline: what lets every PostgreSQL call give up on a
/// server that stopped answering instead of blocking its thread until TCP does.
enum SocketWait {
    /// True when `socket` became ready for `events` (or reported an error, which the caller's
    /// next libpq call reads) before `deadline`; false when the time ran out. No deadline waits
    /// without limit.
    static func until(_ deadline: ContinuousClock.Instant?, socket: Int32, events: Int16) -> Bool {
        guard socket >= 0 else { return true }
        var entry = pollfd(fd: socket, events: events, revents: 0)
        while true {
            var timeout: Int32 = -1
            if let deadline {
                let left = ContinuousClock.now.duration(to: deadline)
                guard left > .zero else { return false }
                timeout = Int32(clamping: left.roundedUpMilliseconds)
            }
            let ready = poll(&entry, 1, timeout)
            if ready > 0 { return true }
            // 0: poll's clock and ours differ by a rounding; the loop checks the deadline again.
            if ready < 0, errno != EINTR { return true }
        }
    }
}

extension Duration {
    /// Whole milliseconds, rounded up so a wait never ends before the deadline it serves.
    var roundedUpMilliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1000 + Int((attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }
}
