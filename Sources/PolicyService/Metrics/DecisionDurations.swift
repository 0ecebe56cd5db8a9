import Synchronization

/// The front ends that take decisions: the decision log's `frontend` field and the `frontend`
/// label of `navpolicyd_decisions_total`, a fixed set, so the series cannot grow.
/// `navpolicyd_decision_duration_seconds` keeps its coarser labels (``durationLabel``).
enum DecisionFrontEnd: String, CaseIterable, Sendable {
    /// `/v1/decide`: GET, POST and batch.
    case decide
    /// `/v1/authz` (nginx `auth_request`, Envoy and Traefik forward auth).
    case authz
    /// The forward and reverse proxy listener.
    case proxy
    /// The proxy listener's `CONNECT` tunnels.
    case tunnel
    /// Share intake (`/v1/intake`), one decision per URL.
    case intake
    /// Envoy's ext_authz HTTP service.
    case extAuthzHTTP = "ext_authz_http"
    /// Envoy's ext_authz gRPC `Check`.
    case extAuthzGRPC = "ext_authz_grpc"

    /// The `frontend` labels of `navpolicyd_decision_duration_seconds`, in slot order: the
    /// labels that histogram has always had (a tunnel is timed as the proxy, both Envoy
    /// transports as `ext_authz`), so dashboards built on it keep working.
    static let durationLabels = ["decide", "authz", "proxy", "intake", "ext_authz"]

    /// Its slot in ``durationLabels``, without a search on the hot path.
    var durationIndex: Int {
        switch self {
        case .decide: 0
        case .authz: 1
        case .proxy, .tunnel: 2
        case .intake: 3
        case .extAuthzHTTP, .extAuthzGRPC: 4
        }
    }

    /// The decision log's `,"frontend":"…","clientAddress":"` up to the address: one literal
    /// per front end, so the line pays one append for both names and the address's quote.
    /// (A line without an address, which is rare, writes the same members piece by piece.)
    var logMembers: StaticString {
        switch self {
        case .decide: #","frontend":"decide","clientAddress":""#
        case .authz: #","frontend":"authz","clientAddress":""#
        case .proxy: #","frontend":"proxy","clientAddress":""#
        case .tunnel: #","frontend":"tunnel","clientAddress":""#
        case .intake: #","frontend":"intake","clientAddress":""#
        case .extAuthzHTTP: #","frontend":"ext_authz_http","clientAddress":""#
        case .extAuthzGRPC: #","frontend":"ext_authz_grpc","clientAddress":""#
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

    private let frontEnds = DecisionFrontEnd.durationLabels.map { _ in Slots() }

    /// Counts one decision of `frontEnd` that took `nanoseconds` in the chain.
    func record(_ frontEnd: DecisionFrontEnd, nanoseconds: UInt64) {
        guard frontEnd.durationIndex < frontEnds.count else { return }
        let slots = frontEnds[frontEnd.durationIndex]
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
