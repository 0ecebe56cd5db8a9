import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Counters and histograms for `/metrics`, in Prometheus text exposition format 0.0.4.
///
/// Label values come from a bounded set (handler names of loaded policies, a fixed list of
/// endpoints, status codes), never from request URLs, so series cannot grow without bound.
public final class Metrics: Sendable {
    /// Upper bounds of the request-duration histogram, in seconds.
    /// Sub-millisecond resolution for decisions, up to 5 s for intake commits and origins.
    static let durationBuckets: [Double] = [
        0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
    ]

    /// One decision counter: the deciding handler ("" = the default decision), verdict, action
    /// and the front end that decided (shadow counts, which have no front end, leave the default).
    struct DecisionKey: Hashable, Sendable {
        var handler: String
        var decision: String
        var action: String
        var frontEnd: DecisionFrontEnd = .decide
    }

    struct RequestKey: Hashable {
        var endpoint: String
        var status: Int
    }

    struct Histogram {
        /// Upper bounds of the buckets, in seconds (the `+Inf` bucket is ``count``).
        let bounds: [Double]
        var bucketCounts: [UInt64]
        var count: UInt64 = 0
        var sum: Double = 0

        init(bounds: [Double] = Metrics.durationBuckets) {
            self.bounds = bounds
            bucketCounts = [UInt64](repeating: 0, count: bounds.count)
        }

        mutating func observe(_ seconds: Double) {
            count += 1
            sum += seconds
            if let bucket = bounds.firstIndex(where: { seconds <= $0 }), bucket < bucketCounts.count {
                bucketCounts[bucket] += 1
            }
        }

        /// The `q` quantile estimated as Prometheus's `histogram_quantile` does: linear within
        /// the bucket that holds it, the last finite bound when it falls in `+Inf`; nil when empty.
        func quantile(_ q: Double) -> Double? {
            guard count > 0 else { return nil }
            let rank = q * Double(count)
            var cumulative: UInt64 = 0
            var lower = 0.0
            for (index, upper) in bounds.enumerated() where index < bucketCounts.count {
                let inBucket = bucketCounts[index]
                if Double(cumulative + inBucket) >= rank, inBucket > 0 {
                    return lower + (upper - lower) * (rank - Double(cumulative)) / Double(inBucket)
                }
                cumulative += inBucket
                lower = upper
            }
            return bounds.last
        }

        /// The `_bucket`, `_sum` and `_count` lines; `labels` is empty or ends with a comma.
        func rendered(as name: String, labels: String) -> String {
            var out = ""
            var cumulative: UInt64 = 0
            for (index, bound) in bounds.enumerated() where index < bucketCounts.count {
                cumulative += bucketCounts[index]
                out += "\(name)_bucket{\(labels)le=\"\(bound)\"} \(cumulative)\n"
            }
            out += "\(name)_bucket{\(labels)le=\"+Inf\"} \(count)\n"
            let plain = labels.isEmpty ? "" : "{\(labels.dropLast())}"
            out += "\(name)_sum\(plain) \(sum)\n"
            out += "\(name)_count\(plain) \(count)\n"
            return out
        }

        /// Both histograms' observations (same buckets).
        func merged(with other: Histogram) -> Histogram {
            var sum = self
            sum.count += other.count
            sum.sum += other.sum
            for index in sum.bucketCounts.indices where index < other.bucketCounts.count {
                sum.bucketCounts[index] += other.bucketCounts[index]
            }
            return sum
        }
    }

    /// The counters every request and decision bumps. They live in stripes, each with its
    /// own lock, picked by the calling thread: workers deciding at the same time take
    /// different locks, so the decision path has no process-wide lock. A scrape sums them.
    struct HotCounters {
        /// Each counter also keeps its last minute (for the status page) in the same value,
        /// so a decision hashes its key at most once (none when it repeats the last one).
        var decisions = DecisionCounters()
        var requests: [RequestKey: UInt64] = [:]
        var durations: [String: Histogram] = [:]
        /// Proxy answers by `code` label (``ProxyMetrics/codeLabel(_:)``).
        var proxyRequests: [String: UInt64] = [:]
        var proxyUpstreamDuration = Histogram()
        var proxyBytesUpstream: UInt64 = 0
        var proxyBytesDownstream: UInt64 = 0
    }

    final class Stripe: Sendable {
        let counters = Mutex(HotCounters())
        /// Requests per endpoint label (``Metrics/endpointLabels``), counted without the lock.
        let endpoints = Metrics.endpointLabels.map { _ in EndpointCounters() }
        /// `navpolicyd_decision_duration_seconds`, counted without the lock.
        let decisionDurations = DecisionDurations()
    }

    /// The endpoint labels counted with atomics, in index order: every declared route's
    /// template (so a counter exists before any route table does), then
    /// `other` (no route matched), `rejected` (refused before routing) and `ext_authz` (every
    /// answer of the ext_authz HTTP service, which has no routes).
    static let endpointLabels = RouteDeclaration.allPaths + ["other", "rejected", "ext_authz"]

    /// The index of `label` in ``endpointLabels``.
    static func endpointIndex(_ label: String) -> Int? { endpointLabels.firstIndex(of: label) }

    /// The rarely written counters (reloads, intake, drops).
    struct State {
        var reloads: [String: UInt64] = ["reloaded": 0, "unchanged": 0, "failed": 0]
        var decisionLogDropped: UInt64 = 0
        var intakeResults: [String: UInt64] = [:]
        var intakeCommits: UInt64 = 0
        var intakeCommittedWrites: UInt64 = 0
        var proxyUpstreamErrors: [String: UInt64] = [:]
        var proxyRefused: [String: UInt64] = [:]
        /// Rate-limited log lines left out, by event.
        var suppressedLogLines: [String: UInt64] = ["intake.storage_failed": 0]
        /// Intake requests waiting on storage now (read at scrape time).
        var intakeWaiting: (@Sendable () -> Int)?
        var intakeWaitingRefused: UInt64 = 0
        /// Whether the config file loaded at the last attempt (start or reload).
        var configValid = true
    }

    private let state = Mutex(State())
    private let stripes: [Stripe] = (0..<Metrics.stripeCount).map { _ in Stripe() }
    public let version: String
    /// `navpolicyd_shadow_decisions_total`: counted only for decisions that carry shadow results.
    let shadow = ShadowMetrics()
    /// `navpolicyd_dry_run_cancels_total`: cancels let through by a front end in dry run.
    let dryRun = DryRunMetrics()
    /// The proxy's `CONNECT` tunnels (rendered with the other `navpolicyd_proxy_*` families).
    let tunnels = TunnelMetrics()
    /// The ext_authz gRPC listener's calls and refused connections (rendered when it runs).
    let grpc = GRPCMetrics()
    /// `navpolicyd_ext_authz_checks_total`, by transport and result (rendered when either
    /// ext_authz listener runs).
    let extAuthz = ExtAuthzMetrics()
    /// `POST /v1/policy/analyze` refused while busy, and runs abandoned by their client.
    let analysis = AnalysisMetrics()
    /// `navpolicyd_policy_source_*` and the status report's `policySource` (rendered when one is configured).
    let policySource = PolicySourceReport()
    /// Whether a proxy listener runs: only then are the `navpolicyd_proxy_*` families rendered.
    private let proxyEnabled = Atomic<Bool>(false)

    /// A power of two, at least the worker count of a typical host.
    static let stripeCount = 16

    /// The calling thread's stripe: its `pthread_t` (an address), mixed so that threads
    /// whose stacks are a fixed distance apart still spread over the stripes.
    private var stripe: Stripe {
        let mixed = UInt64(pthread_self()) &* 0x9E37_79B9_7F4A_7C15
        return stripes[Int(truncatingIfNeeded: mixed >> 60) & (Self.stripeCount - 1)]
    }

    public init(version: String) {
        self.version = version
    }

    func recordDecision(handler: String?, decision: String, action: String?, frontEnd: DecisionFrontEnd) {
        let key = DecisionKey(handler: handler ?? "", decision: decision, action: action ?? "", frontEnd: frontEnd)
        let second = RecentCounts.currentSecond()
        stripe.counters.withLock { $0.decisions.record(key, second: second) }
    }

    /// Decision counts since start and over the last minute, summed over the stripes.
    func decisionCounts() -> (sinceStart: [DecisionKey: UInt64], lastMinute: [DecisionKey: UInt64]) {
        let now = RecentCounts.currentSecond()
        var sinceStart: [DecisionKey: UInt64] = [:]
        var lastMinute: [DecisionKey: UInt64] = [:]
        for stripe in stripes {
            stripe.counters.withLock { counters in
                counters.decisions.forEach { key, counter in
                    sinceStart[key, default: 0] += counter.total
                    let recent = counter.recent.sum(upTo: now)
                    if recent > 0 { lastMinute[key, default: 0] += recent }
                }
            }
        }
        return (sinceStart, lastMinute)
    }

    /// Counts one decision's time in the chain (``DecisionDurations``).
    func recordDecisionDuration(_ frontEnd: DecisionFrontEnd, nanoseconds: UInt64) {
        stripe.decisionDurations.record(frontEnd, nanoseconds: nanoseconds)
    }

    /// The decision-time histograms since start, one per ``DecisionFrontEnd/durationLabels`` entry.
    func decisionDurations() -> [Histogram] {
        var histograms = DecisionFrontEnd.durationLabels.map { _ in Histogram(bounds: DecisionDurations.buckets) }
        for stripe in stripes { stripe.decisionDurations.add(to: &histograms) }
        return histograms
    }

    /// Reload attempts since start, by result.
    var reloadCounts: [String: UInt64] { state.withLock { $0.reloads } }

    public func recordRequest(endpoint: String, status: Int, seconds: Double) {
        recordRequest(endpoint: endpoint, index: Self.endpointIndex(endpoint), status: status, seconds: seconds)
    }

    /// Counts one answer of the endpoint `endpoint`, whose place in ``endpointLabels`` is
    /// `index` (the router knows it, so the hot path neither searches nor hashes the label).
    func recordRequest(endpoint: String, index: Int?, status: Int, seconds: Double) {
        let stripe = stripe
        if let index, index < stripe.endpoints.count, let slot = EndpointCounters.slot(of: status) {
            stripe.endpoints[index].record(slot: slot, seconds: seconds)
            return
        }
        stripe.counters.withLock { state in
            state.requests[RequestKey(endpoint: endpoint, status: status), default: 0] += 1
            // Mutated in place: copying the histogram out and back would copy its bucket array
            // on every request.
            state.durations[endpoint, default: Histogram()].observe(seconds)
        }
    }

    /// One reload attempt's result; when the attempt read the config file it also sets
    /// `navpolicyd_policy_config_valid` (the file on disk loaded, or not), whatever triggered it.
    /// A daemon with `policySource` reads its file at start only: a reload is a poll, whose
    /// failure says nothing of the file (`navpolicyd_policy_source_*` report it).
    public func recordReload(result: String, readConfigFile: Bool = true) {
        state.withLock { state in
            state.reloads[result, default: 0] += 1
            if readConfigFile { state.configValid = result != "failed" }
        }
    }

    /// One intake request's outcome: `created`, `duplicate`, `replayed`, or its problem kind (a fixed set).
    public func recordIntake(result: String) {
        state.withLock { $0.intakeResults[result, default: 0] += 1 }
    }

    /// A rate-limited log line that was not written.
    func recordSuppressedLogLine(event: String) {
        state.withLock { $0.suppressedLogLines[event, default: 0] += 1 }
    }

    /// Shows `event`'s suppressed-lines series (at 0) from the start, so an alert on its rate
    /// has a series to read before the first line is left out.
    func declareSuppressedLogLines(event: String) {
        state.withLock { _ = $0.suppressedLogLines[event, default: 0] }
    }

    /// Reads the number of intake requests waiting on storage at scrape time.
    func observeIntakeWaiting(_ count: @escaping @Sendable () -> Int) {
        state.withLock { $0.intakeWaiting = count }
    }

    /// An intake request answered 503 at once because `intake.maxWaitingRequests` were waiting.
    func recordIntakeWaitingRefused() {
        state.withLock { $0.intakeWaitingRefused += 1 }
    }

    /// One intake COMMIT and how many writes it covered (group commit's batch size).
    public func recordIntakeCommit(writes: Int) {
        state.withLock { state in
            state.intakeCommits += 1
            state.intakeCommittedWrites += UInt64(writes)
        }
    }

    /// Turns on the `navpolicyd_proxy_*` families (the proxy listener calls it once, at start),
    /// with every upstream error kind present at 0 so that `rate()` sees the first error.
    public func enableProxyMetrics() {
        state.withLock { state in
            for kind in ProxyMetrics.upstreamErrorKinds { state.proxyUpstreamErrors[kind, default: 0] += 0 }
            for reason in ProxyMetrics.refusalReasons { state.proxyRefused[reason, default: 0] += 0 }
        }
        proxyEnabled.store(true, ordering: .relaxed)
    }

    /// One answer of the proxy listener, whatever produced it (the origin, a cancel, a problem).
    public func recordProxyRequest(status: Int) {
        let code = ProxyMetrics.codeLabel(status)
        stripe.counters.withLock { $0.proxyRequests[code, default: 0] += 1 }
    }

    /// Time from handing a request to libcurl until the origin's response head (or the failure).
    public func recordProxyUpstream(seconds: Double) {
        stripe.counters.withLock { $0.proxyUpstreamDuration.observe(seconds) }
    }

    /// A forward that got no usable response; `kind` is one of ``ProxyMetrics/upstreamErrorKinds``.
    public func recordProxyUpstreamError(kind: String) {
        state.withLock { $0.proxyUpstreamErrors[kind, default: 0] += 1 }
    }

    /// A forward the proxy refused itself; `reason` is one of ``ProxyMetrics/refusalReasons``.
    public func recordProxyRefused(reason: String) {
        state.withLock { $0.proxyRefused[reason, default: 0] += 1 }
    }

    /// Body bytes of one finished transfer: sent to the origin, and received from it.
    public func recordProxyBytes(sent: Int, received: Int) {
        stripe.counters.withLock { counters in
            counters.proxyBytesUpstream += UInt64(max(0, sent))
            counters.proxyBytesDownstream += UInt64(max(0, received))
        }
    }

    public func recordDecisionLogDrop() {
        state.withLock { $0.decisionLogDropped += 1 }
    }

    /// The rarely written counters as of now (drops, reload and intake results).
    var stateCounts: State { state.withLock { $0 } }

    /// The HTTP request counts and durations since start, summed over the stripes.
    func requestTotals() -> (requests: [RequestKey: UInt64], durations: [String: Histogram]) {
        let hot = hotTotals().hot
        return (hot.requests, hot.durations)
    }

    /// Every stripe's hot counters added up, and the decision counts since start.
    private func hotTotals() -> (hot: HotCounters, decisions: [DecisionKey: UInt64]) {
        var decisions: [DecisionKey: UInt64] = [:]
        let hot = stripes.reduce(into: HotCounters()) { total, stripe in
            stripe.counters.withLock { counters in
                counters.decisions.forEach { key, counter in decisions[key, default: 0] += counter.total }
                total.requests.merge(counters.requests, uniquingKeysWith: +)
                total.durations.merge(counters.durations) { $0.merged(with: $1) }
                for (label, endpoint) in zip(Self.endpointLabels, stripe.endpoints) {
                    endpoint.add(endpoint: label, to: &total.requests, durations: &total.durations)
                }
                total.proxyRequests.merge(counters.proxyRequests, uniquingKeysWith: +)
                total.proxyUpstreamDuration = total.proxyUpstreamDuration.merged(with: counters.proxyUpstreamDuration)
                total.proxyBytesUpstream += counters.proxyBytesUpstream
                total.proxyBytesDownstream += counters.proxyBytesDownstream
            }
        }
        return (hot, decisions)
    }

    /// The exposition text, with the gauges the caller reads at scrape time.
    public func render(openConnections: Int, policyHandlers: Int?, policyLoadedAt: Double?) -> String {
        let snapshot = state.withLock { $0 }
        let (hot, decisions) = hotTotals()
        var out = ""
        func family(_ name: String, _ type: String, _ help: String) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        }
        family(
            "navpolicyd_decisions_total", "counter",
            "Decisions made, by handler (empty = default decision), decision, action and front end.")
        for (key, value) in decisions.sorted(by: { "\($0.key)" < "\($1.key)" }) {
            out +=
                "navpolicyd_decisions_total{handler=\"\(escape(key.handler))\",decision=\"\(key.decision)\",action=\"\(escape(key.action))\",frontend=\"\(key.frontEnd.rawValue)\"} \(value)\n"
        }
        family("navpolicyd_http_requests_total", "counter", "HTTP requests answered, by endpoint and status code.")
        for (key, value) in hot.requests.sorted(by: { ($0.key.endpoint, $0.key.status) < ($1.key.endpoint, $1.key.status) }) {
            out += "navpolicyd_http_requests_total{endpoint=\"\(key.endpoint)\",code=\"\(key.status)\"} \(value)\n"
        }
        family(
            "navpolicyd_http_request_duration_seconds", "histogram", "Time from a complete request to its response, by endpoint.")
        for (endpoint, histogram) in hot.durations.sorted(by: { $0.key < $1.key }) {
            out += histogram.rendered(as: "navpolicyd_http_request_duration_seconds", labels: "endpoint=\"\(endpoint)\",")
        }
        family(
            "navpolicyd_decision_duration_seconds", "histogram",
            "Time in the policy chain per decision (URL already canonicalized), by front end.")
        for (frontEnd, histogram) in zip(DecisionFrontEnd.durationLabels, decisionDurations()) {
            out += histogram.rendered(as: "navpolicyd_decision_duration_seconds", labels: "frontend=\"\(frontEnd)\",")
        }
        family("navpolicyd_policy_reloads_total", "counter", "Policy reload attempts, by result.")
        for (result, value) in snapshot.reloads.sorted(by: { $0.key < $1.key }) {
            out += "navpolicyd_policy_reloads_total{result=\"\(result)\"} \(value)\n"
        }
        family(
            "navpolicyd_policy_config_valid", "gauge",
            "1 when the config file loaded at the last attempt (start or reload), 0 when that attempt failed.")
        out += "navpolicyd_policy_config_valid \(snapshot.configValid ? 1 : 0)\n"
        family(
            "navpolicyd_intake_requests_total", "counter",
            "Intake POSTs, by result (created, duplicate, replayed or problem kind).")
        for (result, value) in snapshot.intakeResults.sorted(by: { $0.key < $1.key }) {
            out += "navpolicyd_intake_requests_total{result=\"\(result)\"} \(value)\n"
        }
        family("navpolicyd_intake_commits_total", "counter", "Intake database transactions committed.")
        out += "navpolicyd_intake_commits_total \(snapshot.intakeCommits)\n"
        family(
            "navpolicyd_intake_committed_writes_total", "counter",
            "Writes covered by those commits (writes/commits = mean batch).")
        out += "navpolicyd_intake_committed_writes_total \(snapshot.intakeCommittedWrites)\n"
        family(
            "navpolicyd_intake_storage_waiting", "gauge",
            "Intake requests waiting on the database now (at most intake.maxWaitingRequests).")
        out += "navpolicyd_intake_storage_waiting \(snapshot.intakeWaiting?() ?? 0)\n"
        family(
            "navpolicyd_intake_waiting_refused_total", "counter",
            "Intake requests answered 503 at once because intake.maxWaitingRequests were waiting.")
        out += "navpolicyd_intake_waiting_refused_total \(snapshot.intakeWaitingRefused)\n"
        family("navpolicyd_log_lines_suppressed_total", "counter", "Rate-limited log lines not written, by event.")
        for (event, value) in snapshot.suppressedLogLines.sorted(by: { $0.key < $1.key }) {
            out += "navpolicyd_log_lines_suppressed_total{event=\"\(event)\"} \(value)\n"
        }
        family("navpolicyd_open_connections", "gauge", "HTTP connections currently open.")
        out += "navpolicyd_open_connections \(openConnections)\n"
        family(
            "navpolicyd_decision_log_dropped_total", "counter",
            "Decision-log lines dropped: buffer full, decisionLog.maxBytes reached, over a batch's allowance or too long.")
        out += "navpolicyd_decision_log_dropped_total \(snapshot.decisionLogDropped)\n"
        if let policyHandlers {
            family("navpolicyd_policy_handlers", "gauge", "Handlers in the active policy.")
            out += "navpolicyd_policy_handlers \(policyHandlers)\n"
        }
        if let policyLoadedAt {
            family("navpolicyd_policy_loaded_timestamp_seconds", "gauge", "When the active policy was loaded (Unix time).")
            out += "navpolicyd_policy_loaded_timestamp_seconds \(policyLoadedAt)\n"
        }
        family("navpolicyd_build_info", "gauge", "Build information; always 1.")
        out += "navpolicyd_build_info{version=\"\(escape(version))\"} 1\n"
        out += shadow.render()
        out += dryRun.render()
        out += analysis.render()
        out += policySource.render()
        if proxyEnabled.load(ordering: .relaxed) {
            out += ProxyMetrics.render(
                requests: hot.proxyRequests, upstreamDuration: hot.proxyUpstreamDuration,
                upstreamErrors: snapshot.proxyUpstreamErrors, refused: snapshot.proxyRefused,
                bytes: (upstream: hot.proxyBytesUpstream, downstream: hot.proxyBytesDownstream))
            out += tunnels.render()
        }
        out += grpc.render()
        out += extAuthz.render()
        out += ProcessMetrics.render()
        return out
    }

    /// Label-value escaping from the exposition format: backslash, quote, newline.
    private func escape(_ value: String) -> String {
        value.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"").replacing("\n", with: "\\n")
    }
}
