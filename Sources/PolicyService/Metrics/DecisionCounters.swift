/// The decision counters of one metrics stripe, by key, with the last key counted kept at hand.
///
/// A daemon usually answers runs of the same decision (same handler, verdict and action);
/// the key's Strings then come from the same policy storage as last time, so comparing
/// them is cheaper than hashing all three again. Any other key takes the dictionary.
struct DecisionCounters: Sendable {
    private var slots: [Metrics.DecisionKey: Int] = [:]
    private var counters: [DecisionCounter] = []
    /// The key counted last and its place in `counters`.
    private var last: (key: Metrics.DecisionKey, slot: Int)?

    /// Counts one decision under `key` at `second`.
    mutating func record(_ key: Metrics.DecisionKey, second: Int) {
        if let last, last.key == key, last.slot < counters.count {
            counters[last.slot].record(second: second)
            return
        }
        let slot: Int
        if let existing = slots[key], existing < counters.count {
            slot = existing
        } else {
            slot = counters.count
            counters.append(DecisionCounter())
            slots[key] = slot
        }
        counters[slot].record(second: second)
        last = (key, slot)
    }

    /// Calls `body` with every key counted and its counter (in no particular order).
    func forEach(_ body: (Metrics.DecisionKey, DecisionCounter) -> Void) {
        for (key, slot) in slots where slot < counters.count { body(key, counters[slot]) }
    }
}
