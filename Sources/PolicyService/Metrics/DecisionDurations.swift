import Synchronization

/// The front ends that take decisions, as the `frontend` label of
/// `navpolicyd_decision_duration_seconds`: a fixed set, so the series cannot grow.
enum DecisionFrontEnd: String, CaseIterable, Sendable {
    /// `/v1/decide`: GET, POST and batch.
    case decide
    /// `/v1/authz` (nginx `auth_request`, Envoy and Traefik forward auth).
    case authz
    /// The forward and reverse proxy listener.
    case proxy
    /// Share intake (`/v1/intake`), one decision per URL.
    case intake
    /// Envoy external authorization: the HTTP service and the gRPC `Check` listener alike.
    case extAuthz = "ext_authz"

    /// Its position in ``allCases``, without a search on the hot path.
    var index: Int {
        switch self {
        case .decide: 0
        case .authz: 1
        case .proxy: 2
        case .intake: 3
        case .extAuthz: 4
        }
    }
}

/// Time spent deciding, by front end, in one metrics stripe: the chain walk only (after the
/// URL was canonicalized, before the answer is written or logged), counted with atomics.
///
/// Decisions take microseconds, so the buckets start at 1 µs; the HTTP histogram's
/// 100 µs first bucket would put nearly every decision in it and say nothing.
final class DecisionDurations: Sendable {
    /// Upper bounds, in seconds: 1 µs to 10 ms.
    static let buckets: [Double] = [
        0.000001, 0.0000025, 0.000005, 0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.01,
    ]

    /// One front end's counters: one per bucket of ``buckets`` (12), the count, the summed nanoseconds.
    final class Slots: Sendable {
        let values: InlineArray<14, Atomic<UInt64>> = InlineArray { _ in Atomic(0) }
        static let count = 12
        static let sum = 13
    }

    private let frontEnds = DecisionFrontEnd.allCases.map { _ in Slots() }

    /// Counts one decision of `frontEnd` that took `nanoseconds` in the chain.
    func record(_ frontEnd: DecisionFrontEnd, nanoseconds: UInt64) {
        guard frontEnd.index < frontEnds.count else { return }
        let slots = frontEnds[frontEnd.index]
        let seconds = Double(nanoseconds) / 1e9
        if let bucket = Self.buckets.firstIndex(where: { seconds <= $0 }), bucket < Slots.count {
            slots.values[bucket].wrappingAdd(1, ordering: .relaxed)
        }
        slots.values[Slots.count].wrappingAdd(1, ordering: .relaxed)
        slots.values[Slots.sum].wrappingAdd(nanoseconds, ordering: .relaxed)
    }

    /// Adds this stripe's observations to a scrape's histograms (one per front end, same order).
    func add(to histograms: inout [Metrics.Histogram]) {
        for (index, slots) in frontEnds.enumerated() where index < histograms.count {
            var histogram = Metrics.Histogram(bounds: Self.buckets)
            histogram.count = slots.values[Slots.count].load(ordering: .relaxed)
            histogram.sum = Double(slots.values[Slots.sum].load(ordering: .relaxed)) / 1e9
            for bucket in histogram.bucketCounts.indices where bucket < Slots.count {
                histogram.bucketCounts[bucket] = slots.values[bucket].load(ordering: .relaxed)
            }
            histograms[index] = histograms[index].merged(with: histogram)
        }
    }
}
