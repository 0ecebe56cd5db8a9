#if canImport(Glibc)
    import Glibc
#endif

/// Decision counts over the last minute: 60 one-second buckets in a ring.
///
/// Lives inside a ``Metrics`` stripe, so it is written under that stripe's lock only. A bucket
/// is reused when its second comes round again (cleared, keeping its capacity), so a busy
/// daemon stops allocating once every key it sees has a slot.
struct DecisionWindow {
    /// Seconds the window covers.
    static let seconds = 60

    private struct Bucket {
        /// The monotonic second this bucket counts; -1 = never used.
        var second = -1
        var counts: [Metrics.DecisionKey: UInt64] = [:]
    }

    private var buckets = [Bucket](repeating: Bucket(), count: DecisionWindow.seconds)

    /// Counts one decision in the bucket of `second`.
    mutating func record(_ key: Metrics.DecisionKey, second: Int) {
        let slot = second % Self.seconds
        guard buckets.indices.contains(slot) else { return }
        if buckets[slot].second != second {
            buckets[slot].second = second
            buckets[slot].counts.removeAll(keepingCapacity: true)
        }
        buckets[slot].counts[key, default: 0] += 1
    }

    /// Adds the counts of the last `seconds` seconds up to and including `now` to `total`.
    func addCounts(upTo now: Int, into total: inout [Metrics.DecisionKey: UInt64]) {
        for bucket in buckets where bucket.second >= 0 && bucket.second <= now && now - bucket.second < Self.seconds {
            total.merge(bucket.counts, uniquingKeysWith: +)
        }
    }

    /// The current second of a clock that never goes back (wall-clock changes do not empty the window).
    /// The coarse clock is read without a system call and is precise enough for one-second buckets.
    static func currentSecond() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &now)
        return Int(now.tv_sec)
    }
}
