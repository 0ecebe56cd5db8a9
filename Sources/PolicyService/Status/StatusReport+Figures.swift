import JSONSupport

extension StatusReport {
    /// `latency`: p50 and p99 estimated from the `/metrics` histograms since start (as
    /// `histogram_quantile` would), per decision front end and per HTTP endpoint that answered.
    func latency() -> JSONObject {
        let decisions = zip(DecisionFrontEnd.allCases, metrics.decisionDurations()).map { frontEnd, histogram in
            JSONValue.object(Self.figures(["frontend": .string(frontEnd.rawValue)], histogram))
        }
        let http = metrics.requestTotals().durations.sorted { $0.key < $1.key }.map { endpoint, histogram in
            JSONValue.object(Self.figures(["endpoint": .string(endpoint)], histogram))
        }
        return ["decisions": .array(decisions), "http": .array(http)]
    }

    /// `count`, `p50Seconds`, `p99Seconds` (null while nothing was observed) after `head`.
    private static func figures(_ head: JSONObject, _ histogram: Metrics.Histogram) -> JSONObject {
        var object = head
        object.append("count", .number(Double(histogram.count)))
        object.append("p50Seconds", histogram.quantile(0.5).map(JSONValue.number) ?? .null)
        object.append("p99Seconds", histogram.quantile(0.99).map(JSONValue.number) ?? .null)
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
