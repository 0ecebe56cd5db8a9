/// The `navpolicyd_proxy_*` families: label sets and rendering. The counters themselves live
/// in ``Metrics`` (requests, latency and bytes in its per-thread stripes, errors with the
/// rarely written counters).
enum ProxyMetrics {
    /// Status codes the proxy answers with often enough to be worth their own series: its own
    /// answers (302/403 cancels, 400, 421, 502, 504, 508 problems, the HTTP layer's 413–431)
    /// and the origins' common ones. Any other code is counted under its class (`2xx` … `5xx`),
    /// so an origin cannot grow the label set.
    static let statusCodes: Set<Int> = [
        200, 201, 204, 206, 301, 302, 303, 304, 307, 308,
        400, 401, 403, 404, 405, 408, 409, 410, 413, 414, 421, 429, 431,
        500, 501, 502, 503, 504, 508,
    ]

    /// Why a forward got no usable response: `connect` (name resolution, TCP or TLS set-up),
    /// `timeout` (connect or silence timeout), `reset` (the connection broke mid-exchange),
    /// `protocol` (not a valid HTTP response), `too-large` (over `proxy.maxResponseBytes`),
    /// `internal` (the proxy itself: shutting down, libcurl could not start the transfer).
    static let upstreamErrorKinds = ["connect", "timeout", "reset", "protocol", "too-large", "internal"]

    /// The destination resolved to an internal address nobody pinned (403, nothing sent).
    static let internalDestination = "internal-destination"
    /// Why the proxy refused a forward itself, before any origin was asked.
    static let refusalReasons = [internalDestination]

    /// The `code` label for `status`: the code itself when in ``statusCodes``, else its class.
    /// Every answer is counted: a lookup in labels made once, not a `Set` probe and a
    /// formatted String per request (≈ 350 instructions of a cancelled request).
    static func codeLabel(_ status: Int) -> String {
        guard (100...599).contains(status) else { return "other" }
        return labels[status - 100]
    }

    /// ``codeLabel(_:)`` for 100 … 599, in order.
    private static let labels: [String] = (100...599).map { status in
        statusCodes.contains(status) ? String(status) : "\(status / 100)xx"
    }

    static func render(
        requests: [String: UInt64], upstreamDuration: Metrics.Histogram, upstreamErrors: [String: UInt64],
        refused: [String: UInt64], bytes: (upstream: UInt64, downstream: UInt64)
    ) -> String {
        var out = ""
        func family(_ name: String, _ type: String, _ help: String) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        }
        // One counter family per label, its series in label order.
        func counters(_ name: String, _ help: String, label: String, _ values: [String: UInt64]) {
            family(name, "counter", help)
            for (key, value) in values.sorted(by: { $0.key < $1.key }) {
                out += "\(name){\(label)=\"\(key)\"} \(value)\n"
            }
        }
        counters(
            "navpolicyd_proxy_requests_total",
            "Requests answered on the proxy listener, by status code (uncommon codes by class).", label: "code", requests)
        counters(
            "navpolicyd_proxy_upstream_errors_total",
            "Forwards that got no usable response from the origin, by kind (502 or 504 to the client).", label: "kind",
            upstreamErrors)
        counters(
            "navpolicyd_proxy_refused_total",
            "Forwards the proxy refused before asking any origin, by reason (internal-destination: 403).",
            label: "reason", refused)
        family(
            "navpolicyd_proxy_upstream_duration_seconds", "histogram",
            "Time from forwarding a request until the origin's response head (or the failure).")
        out += upstreamDuration.rendered(as: "navpolicyd_proxy_upstream_duration_seconds", labels: "")
        family(
            "navpolicyd_proxy_bytes_total", "counter",
            "Body bytes exchanged with origins: upstream = request bodies sent, downstream = response bodies received.")
        out += "navpolicyd_proxy_bytes_total{direction=\"upstream\"} \(bytes.upstream)\n"
        out += "navpolicyd_proxy_bytes_total{direction=\"downstream\"} \(bytes.downstream)\n"
        return out
    }
}
