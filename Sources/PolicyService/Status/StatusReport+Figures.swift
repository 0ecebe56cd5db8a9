import JSONSupport
import PolicySections

extension StatusReport {
    /// `latency`: p50 and p99 estimated from the `/metrics` histograms since start (as
    /// `histogram_quantile` would), per decision front end and per HTTP endpoint that answered.
    func latency() -> JSONObject {
        let decisions = zip(DecisionFrontEnd.durationLabels, metrics.decisionDurations()).map { frontEnd, histogram in
            JSONValue.object(Self.figures(["frontend": .string(frontEnd)], histogram))
        }
        let http = metrics.requestTotals().durations.sorted { $0.key < $1.key }.map { endpoint, histogram in
            JSONValue.object(Self.figures(["endpoint": .string(endpoint)], histogram))
        }
        return ["decisions": .array(decisions), "http": .array(http)]
    }

    /// The fewest observations a median is shown for: below it, one slow request moves the
    /// "median" by a bucket and it says nothing.
    static let minimumSamplesForP50: UInt64 = 20
    /// The fewest observations a p99 is shown for: with fewer than 100, the 99th percentile
    /// is only the largest observation under another name.
    static let minimumSamplesForP99: UInt64 = 100

    /// `count`, `p50Seconds`, `p99Seconds` after `head`; each percentile is null until the
    /// histogram holds ``minimumSamplesForP50`` / ``minimumSamplesForP99`` observations.
    private static func figures(_ head: JSONObject, _ histogram: Metrics.Histogram) -> JSONObject {
        var object = head
        object.append("count", .number(Double(histogram.count)))
        let p50 = histogram.count >= minimumSamplesForP50 ? histogram.quantile(0.5) : nil
        let p99 = histogram.count >= minimumSamplesForP99 ? histogram.quantile(0.99) : nil
        object.append("p50Seconds", p50.map(JSONValue.number) ?? .null)
        object.append("p99Seconds", p99.map(JSONValue.number) ?? .null)
        return object
    }

    /// `decisionLog`: whether it is on, where, its size against `decisionLog.maxBytes`,
    /// whether URLs are redacted by parameter name, and the lines dropped since start.
    func decisionLog(_ snapshot: PolicySnapshot?) -> JSONObject {
        let log = sources.decisionLog
        var object = JSONObject()
        object.append("enabled", .bool(log != nil))
        object.append("path", log.map { .string($0.path) } ?? .null)
        object.append("bytes", log.map { .number(Double($0.fileBytes)) } ?? .null)
        object.append("maxBytes", .number(Double(snapshot?.logMaxBytes ?? DecisionLogSettings.defaultMaxBytes)))
        // A userinfo password is always redacted; this says whether parameters are too.
        object.append("redaction", .bool(!(snapshot?.logRedaction.isEmpty ?? true)))
        object.append("dropped", .number(Double(metrics.stateCounts.decisionLogDropped)))
        return object
    }

    /// `errors`: what went wrong since start, each from its `/metrics` counter.
    func errors() -> JSONObject {
        let requests = metrics.requestTotals().requests
        func answered(_ range: ClosedRange<Int>) -> UInt64 {
            requests.reduce(0) { total, entry in range.contains(entry.key.status) ? total + entry.value : total }
        }
        let state = metrics.stateCounts
        // Intake results that are not a stored or repeated item are problems (their kind).
        let intakeProblems = state.intakeResults.reduce(0) { total, entry in
            ["created", "duplicate", "replayed"].contains(entry.key) ? total : total + entry.value
        }
        return [
            "http4xx": .number(Double(answered(400...499))),
            "http5xx": .number(Double(answered(500...599))),
            "reloadsFailed": .number(Double(state.reloads["failed"] ?? 0)),
            "decisionLogDropped": .number(Double(state.decisionLogDropped)),
            "intakeProblems": .number(Double(intakeProblems)),
            "proxyUpstreamErrors": .number(Double(state.proxyUpstreamErrors.values.reduce(0, +))),
        ]
    }
}
