import Synchronization

/// One endpoint's request counters in one metrics stripe, as atomics: answering a request
/// bumps a status slot, a duration bucket, the count and the summed nanoseconds, with no
/// lock and no hashing of the endpoint label.
///
/// Only the status codes the daemon answers with have a slot; any other code is counted in
/// the stripe's locked dictionaries instead (``Metrics/recordRequest(endpoint:status:seconds:)``),
/// and a scrape adds both.
final class EndpointCounters: Sendable {
    /// The codes with a slot, in slot order.
    static let statuses = [
        200, 201, 202, 204, 206, 301, 302, 303, 304, 307, 308, 400, 401, 403, 404, 405, 406, 408, 409, 410, 411,
        412, 413, 414, 415, 416, 417, 421, 422, 428, 429, 431, 500, 501, 502, 503, 504, 505,
    ]
    /// Slots available (at least `statuses.count`).
    private static let slotCapacity = 40
    /// `status - 100` → slot + 1 (0 = no slot), for 100...599: one lookup per request.
    private static let slotTable: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 500)
        for (slot, status) in statuses.enumerated() where slot < slotCapacity { table[status - 100] = UInt8(slot + 1) }
        return table
    }()

    private let statusCounts: InlineArray<40, Atomic<UInt64>>
    /// One per bound of ``Metrics/durationBuckets`` (15 today); observations above the last
    /// bound are only in ``count``, as the `+Inf` bucket.
    private let bucketCounts: InlineArray<16, Atomic<UInt64>>
    private let count = Atomic<UInt64>(0)
    private let nanoseconds = Atomic<UInt64>(0)

    init() {
        statusCounts = InlineArray { _ in Atomic(0) }
        bucketCounts = InlineArray { _ in Atomic(0) }
    }

    /// The slot counting `status`, nil when it has none.
    static func slot(of status: Int) -> Int? {
        let offset = status - 100
        guard offset >= 0, offset < slotTable.count else { return nil }
        let entry = Int(slotTable[offset])
        return entry == 0 ? nil : entry - 1
    }

    /// Counts one answer in `slot` (from ``slot(of:)``) that took `seconds`.
    func record(slot: Int, seconds: Double) {
        guard slot >= 0, slot < Self.slotCapacity else { return }
        statusCounts[slot].wrappingAdd(1, ordering: .relaxed)
        if let bucket = Metrics.durationBuckets.firstIndex(where: { seconds <= $0 }), bucket < 16 {
            bucketCounts[bucket].wrappingAdd(1, ordering: .relaxed)
        }
        count.wrappingAdd(1, ordering: .relaxed)
        // Whole nanoseconds: an integer adds atomically, a Double would need a CAS loop.
        let nanos = seconds > 0 ? UInt64(min(seconds * 1e9, 1e18)) : 0
        nanoseconds.wrappingAdd(nanos, ordering: .relaxed)
    }

    /// Adds this stripe's counts for `endpoint` to a scrape's totals.
    func add(endpoint: String, to requests: inout [Metrics.RequestKey: UInt64], durations: inout [String: Metrics.Histogram]) {
        let observed = count.load(ordering: .relaxed)
        guard observed > 0 else { return }
        for (slot, status) in Self.statuses.enumerated() where slot < Self.slotCapacity {
            let value = statusCounts[slot].load(ordering: .relaxed)
            if value > 0 { requests[Metrics.RequestKey(endpoint: endpoint, status: status), default: 0] += value }
        }
        var histogram = Metrics.Histogram()
        histogram.count = observed
        histogram.sum = Double(nanoseconds.load(ordering: .relaxed)) / 1e9
        for index in histogram.bucketCounts.indices where index < 16 {
            histogram.bucketCounts[index] = bucketCounts[index].load(ordering: .relaxed)
        }
        durations[endpoint] = durations[endpoint].map { $0.merged(with: histogram) } ?? histogram
    }
}
