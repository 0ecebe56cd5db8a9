#if canImport(Glibc)
    import Glibc
#endif

/// One counter's events over the last minute: 60 one-second slots in a ring, stored inline.
///
/// Kept inside the counter's dictionary value (``DecisionCounter``), so counting a decision
/// hashes its key once for both the total and the window, and allocates nothing: the slots
/// are an `InlineArray`. A slot is reused when its second comes round again.
struct RecentCounts: Sendable {
    /// Seconds the window covers.
    static let seconds = 60

    /// The monotonic second each slot counts; -1 = never used.
    private var stamps = InlineArray<60, Int>(repeating: -1)
    private var counts = InlineArray<60, UInt32>(repeating: 0)

    /// Counts one event in the slot of `second`.
    mutating func add(second: Int) {
        let slot = (second % Self.seconds + Self.seconds) % Self.seconds
        if stamps[slot] != second {
            stamps[slot] = second
            counts[slot] = 0
        }
        counts[slot] &+= 1
    }

    /// The events of the 60 seconds up to and including `now`.
    func sum(upTo now: Int) -> UInt64 {
        var total: UInt64 = 0
        for slot in 0..<Self.seconds where stamps[slot] >= 0 && stamps[slot] <= now && now - stamps[slot] < Self.seconds {
            total += UInt64(counts[slot])
        }
        return total
    }

    /// The current second of a clock that never goes back (wall-clock changes do not empty the
    /// window). The coarse clock is read without a system call and is precise enough for
    /// one-second slots.
    static func currentSecond() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &now)
        return Int(now.tv_sec)
    }
}

/// A decision counter: the total since start and the last minute.
struct DecisionCounter: Sendable {
    var total: UInt64 = 0
    var recent = RecentCounts()

    mutating func record(second: Int) {
        total += 1
        recent.add(second: second)
    }
}
