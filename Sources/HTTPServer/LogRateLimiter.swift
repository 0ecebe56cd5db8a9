import Synchronization

/// Lets through at most `limit` log lines per window and counts the rest.
///
/// Used for libmicrohttpd's messages and for refused bearer tokens.
/// libmicrohttpd logs a line for every connection it refuses or sees closed; a client
/// opening thousands of connections must not turn that into thousands of log lines.
public final class LogRateLimiter: Sendable {
    private struct Window {
        var start: Int64?
        var passed = 0
        var suppressed = 0
    }

    private let limit: Int
    private let windowMilliseconds: Int64
    private let window = Mutex(Window())

    /// At most `limit` lines per window of `windowMilliseconds`.
    public init(limit: Int, windowMilliseconds: Int64) {
        self.limit = limit
        self.windowMilliseconds = windowMilliseconds
    }

    /// Whether a line may be written at `now`; when it may, also how many lines were
    /// suppressed since the last one written (to be logged with it).
    public func admit(now: Int64) -> (allowed: Bool, suppressedBefore: Int) {
        window.withLock { current in
            if let start = current.start, now - start < windowMilliseconds {
                guard current.passed < limit else {
                    current.suppressed += 1
                    return (false, 0)
                }
                current.passed += 1
                return (true, 0)
            }
            let suppressed = current.suppressed
            current = Window(start: now, passed: 1, suppressed: 0)
            return (true, suppressed)
        }
    }

    /// Lines suppressed in a window that has ended, handed out once (for a periodic flush).
    public func takeSuppressed(now: Int64) -> Int {
        window.withLock { current in
            guard current.suppressed > 0, let start = current.start, now - start >= windowMilliseconds else { return 0 }
            defer { current.suppressed = 0 }
            return current.suppressed
        }
    }
}
