import BundleSigning
import Foundation
import HTTPServer
import JSONSupport

/// The HTML status page (`GET /` and `GET /status` from a browser): rendered from the
/// same object as `GET /v1/status`, then kept current by ``StatusPageAssets/script``.
///
/// Everything taken from the report (handler names, match patterns, paths, errors) is
/// config- or request-controlled, so it goes through ``HTMLText/escape(_:)``; the CSP allows
/// only the page's own script and style (by hash) and requests to this origin.
enum StatusPage {
    /// `default-src 'none'` and the two hashes; `connect-src 'self'` for the polling script.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src '\(hash(StatusPageAssets.script))'; style-src '\(hash(StatusPageAssets.style))'; "
        + "connect-src 'self'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// `sha256-<base64>` of an inline element's exact text, as CSP Level 3 wants it.
    static func hash(_ text: String) -> String {
        "sha256-" + Data(SHA256.hash(Array(text.utf8))).base64EncodedString()
    }

    static func response(_ report: JSONObject) -> HTTPResponse {
        HTTPResponse(
            status: 200,
            headers: HTTPHeaders([
                (.contentType, "text/html; charset=utf-8"),
                (.contentSecurityPolicy, contentSecurityPolicy),
                (.xContentTypeOptions, "nosniff"),
                // frame-ancestors 'none' above, for browsers that do not read it.
                (.xFrameOptions, "DENY"),
                (.referrerPolicy, "no-referrer"),
            ]), body: Array(html(report).utf8))
    }

    static func html(_ report: JSONObject) -> String {
        let version = report["version"]?.stringValue ?? ""
        let startedAt = report["startedAt"]?.stringValue ?? ""
        let generatedAt = report["generatedAt"]?.stringValue ?? ""
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>navpolicyd status</title><style>\(StatusPageAssets.style)</style></head>
            <body><header><h1>navpolicyd status</h1>
            <p>Version <span id="version">\(e(version))</span>, started <span id="started-at">\(e(startedAt))</span>.</p></header>
            \(main(report))
            <footer><p>Updated <span id="updated">\(e(generatedAt))</span> (<span id="refresh-state">loading</span>,
            every \(StatusPageAssets.refreshSeconds) s). Data: <a href="v1/status">/v1/status</a>.</p></footer>
            <script>\(StatusPageAssets.script)</script>
            </body></html>

            """
    }

    private static func main(_ report: JSONObject) -> String {
        var out = #"<main id="status">"#
        let policy = report["policy"]?.objectValue ?? [:]
        var error = "none"
        if let failure = policy["lastReloadError"]?.objectValue {
            let errors = failure["errors"]?.arrayValue?.compactMap(\.stringValue) ?? []
            error = (failure["at"]?.stringValue ?? "") + ": " + errors.joined(separator: "; ")
        }
        out += #"<section id="policy"><h2>Policy</h2><dl>"#
        out += row("Revision", policy["revision"]?.stringValue ?? "none", id: "revision")
        out += row("Loaded", policy["loadedAt"]?.stringValue ?? "never", id: "loaded-at")
        out += row("Config", policy["configPath"]?.stringValue ?? "")
        out += row("Last reload error", error, id: "last-reload-error")
        out += "</dl></section>"
        out += chain(report)
        out += reloads(report["reloads"]?.objectValue ?? [:])
        if let source = report["policySource"]?.objectValue { out += policySource(source) }
        let intake = report["intake"]?.objectValue ?? [:]
        let health = healthText(intake["health"])
        out += #"<section id="intake"><h2>Intake store</h2><dl>"#
        out += row("State", intake["state"]?.stringValue ?? "", id: "intake-state")
        out += row("Database", intake["database"]?.stringValue ?? "none")
        out += row("Token required", intake["tokenRequired"]?.boolValue == true ? "yes" : "no")
        out += row("Health", health, id: "intake-health")
        out += "</dl></section>"
        out += latency(report["latency"]?.objectValue ?? [:])
        out += decisionLog(report["decisionLog"]?.objectValue ?? [:])
        out += errors(report["errors"]?.objectValue ?? [:])
        out += #"<section id="listeners"><h2>Listeners</h2><ul class="listeners">"#
        for listener in report["listeners"]?.arrayValue ?? [] {
            out += "<li>" + e((listener["role"]?.stringValue ?? "") + " " + (listener["address"]?.stringValue ?? "")) + "</li>"
        }
        out += "</ul></section></main>"
        return out
    }

    private static func chain(_ report: JSONObject) -> String {
        var out = #"<section id="chain"><h2>Chain</h2><ol class="chain">"#
        for link in report["chain"]?.arrayValue ?? [] {
            let name = link["name"]?.stringValue ?? ""
            let shadow = link["shadow"]?.boolValue == true
            let decision = link["decision"]?.stringValue ?? ""
            var does = decision
            if let action = link["action"]?.stringValue { does += " · " + action }
            if let location = link["location"]?.stringValue { does += " → " + location }
            out += #"<li class="\#(shadow ? "link shadow" : "link")" data-handler="\#(e(name))"><div class="head">"#
            out += #"<span class="position">\#(link["position"]?.integerValue ?? 0).</span> "#
            out += #"<span class="name">\#(e(name))</span> <span class="type">\#(e(link["type"]?.stringValue ?? ""))</span>"#
            if shadow { out += #"<span class="badge">shadow</span>"# }
            out += #"</div><div class="match">\#(e(link["match"]?.stringValue ?? ""))</div>"#
            out += #"<div class="does">\#(e((shadow ? "would " : "") + does))</div>"#
            out += counts(link["counts"], decisions: shownDecisions(decision, link["counts"])) + "</li>"
        }
        let fallback = report["defaultDecision"]?.objectValue ?? [:]
        let verdict = fallback["decision"]?.stringValue
        out += #"<li class="link default" data-handler=""><div class="head"><span class="name">default decision</span></div>"#
        out += #"<div class="does">\#(e(verdict ?? "none"))</div>"#
        out += counts(fallback["counts"], decisions: [verdict ?? "allow"]) + "</li></ol>"
        let totals = report["totals"]
        func total(_ window: String, _ decision: String) -> Int { totals?[window]?[decision]?.integerValue ?? 0 }
        out +=
            #"<p class="totals">All decisions: \#(total("sinceStart", "allow")) allow, \#(total("sinceStart", "cancel")) cancel since start; "#
            + "\(total("lastMinute", "allow")) allow, \(total("lastMinute", "cancel")) cancel in the last minute</p></section>"
        return out
    }

    private static func reloads(_ reloads: JSONObject) -> String {
        let counts = reloads["counts"]
        func count(_ result: String) -> Int { counts?[result]?.integerValue ?? 0 }
        var out = #"<section id="reloads"><h2>Reloads</h2>"#
        out += "<p>\(count("reloaded")) reloaded, \(count("unchanged")) unchanged, \(count("failed")) failed since start</p>"
        out += #"<table class="reloads"><tr><th>at</th><th>trigger</th><th>result</th><th>errors</th></tr>"#
        for reload in reloads["recent"]?.arrayValue ?? [] {
            let result = reload["result"]?.stringValue ?? ""
            let errors = reload["errors"]?.arrayValue?.compactMap(\.stringValue) ?? []
            out += #"<tr class="\#(e(result))"><td>\#(e(reload["at"]?.stringValue ?? ""))</td>"#
            out += "<td>\(e(reload["trigger"]?.stringValue ?? ""))</td><td>\(e(result))</td>"
            out += "<td>\(e(errors.joined(separator: "; ")))</td></tr>"
        }
        return out + "</table></section>"
    }

    /// The rows a handler's counts show: what it decides, and another verdict only if it was
    /// counted (a cancel-only handler gets no `allow 0` row).
    private static func shownDecisions(_ decision: String, _ counts: JSONValue?) -> [String] {
        ["allow", "cancel"].filter { $0 == decision || (counts?["sinceStart"]?[$0]?.integerValue ?? 0) > 0 }
    }

    /// The intake store's health in words: `ok`, `unavailable (fault)`, or `not reported`.
    private static func healthText(_ health: JSONValue?) -> String {
        guard let status = health?["status"]?.stringValue else { return "not reported" }
        guard let fault = health?["fault"]?.stringValue else { return status }
        return status + " (" + fault + ")"
    }

    /// `3.2 µs`, `1.5 ms`, `2.0 s`: one decimal, in the unit that suits; `–` when nothing was observed.
    static func duration(_ seconds: Double?) -> String {
        guard let seconds else { return "–" }
        let (value, unit) = seconds < 0.001 ? (seconds * 1e6, "µs") : seconds < 1 ? (seconds * 1e3, "ms") : (seconds, "s")
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(unit)"
    }

    private static func latency(_ latency: JSONObject) -> String {
        var out = #"<section id="latency"><h2>Latency</h2><table class="latency">"#
        out += "<tr><th></th><th>count</th><th>p50</th><th>p99</th></tr>"
        let rows =
            (latency["decisions"]?.arrayValue ?? []).map { ("decide in chain: " + ($0["frontend"]?.stringValue ?? ""), $0) }
            + (latency["http"]?.arrayValue ?? []).map { ("HTTP " + ($0["endpoint"]?.stringValue ?? ""), $0) }
        for (label, figures) in rows {
            out += "<tr><th>\(e(label))</th><td>\(figures["count"]?.integerValue ?? 0)</td>"
            out += "<td>\(e(duration(figures["p50Seconds"]?.doubleValue)))</td>"
            out += "<td>\(e(duration(figures["p99Seconds"]?.doubleValue)))</td></tr>"
        }
        return out + "</table></section>"
    }

    /// The decision log's rows: off, or its path, size against the budget, redaction and drops.
    /// The page's script renders the same rows (``StatusPageScript``).
    private static func decisionLog(_ log: JSONObject) -> String {
        var out = #"<section id="decision-log"><h2>Decision log</h2><dl>"#
        guard log["enabled"]?.boolValue == true else {
            return out + row("State", "off", id: "decision-log-state") + "</dl></section>"
        }
        out += row("State", "on", id: "decision-log-state")
        out += row("Path", log["path"]?.stringValue ?? "", id: "decision-log-path")
        let bytes = log["bytes"]?.integerValue ?? 0
        let maxBytes = log["maxBytes"]?.integerValue ?? 0
        out += row("Size", "\(bytes) of \(maxBytes) bytes (decisionLog.maxBytes)", id: "decision-log-size")
        let redaction = log["redaction"]?.boolValue == true ? "query parameters by name and passwords" : "passwords only"
        out += row("Redaction", redaction, id: "decision-log-redaction")
        out += row("Lines dropped", String(log["dropped"]?.integerValue ?? 0), id: "decision-log-dropped")
        return out + "</dl></section>"
    }

    /// The error figures, in the report's order.
    static let errorLabels = [
        ("http4xx", "HTTP 4xx answers"), ("http5xx", "HTTP 5xx answers"), ("reloadsFailed", "Failed reloads"),
        ("decisionLogDropped", "Decision-log lines dropped"), ("intakeProblems", "Intake problems"),
        ("proxyUpstreamErrors", "Proxy upstream errors"),
    ]

    private static func errors(_ errors: JSONObject) -> String {
        var out = #"<section id="errors"><h2>Errors since start</h2><dl>"#
        for (key, label) in errorLabels {
            out += row(label, String(errors[key]?.integerValue ?? 0), id: "errors-" + key)
        }
        return out + "</dl></section>"
    }

    private static func counts(_ counts: JSONValue?, decisions: [String]) -> String {
        var out = #"<table class="counts"><tr><th></th><th>since start</th><th>last minute</th></tr>"#
        for decision in decisions {
            let sinceStart = counts?["sinceStart"]?[decision]?.integerValue ?? 0
            let lastMinute = counts?["lastMinute"]?[decision]?.integerValue ?? 0
            out += #"<tr class="\#(e(decision))"><th>\#(e(decision))</th><td class="since-start">\#(sinceStart)</td>"#
            out += #"<td class="last-minute">\#(lastMinute)</td></tr>"#
        }
        return out + "</table>"
    }

    /// Where a `policySource` daemon's pulled policy stands (only with `policySource`).
    private static func policySource(_ source: JSONObject) -> String {
        var failure = "none"
        if let last = source["lastFailure"]?.objectValue {
            failure = [last["at"], last["reason"], last["detail"]].map { $0?.stringValue ?? "" }.joined(separator: ": ")
        }
        var out = #"<section id="policy-source"><h2>Policy source</h2><dl>"#
        out += row("URL", source["url"]?.stringValue ?? "")
        out += row("Revision", source["revision"]?.stringValue ?? "none", id: "policy-source-revision")
        out += row("policyVersion", source["policyVersion"]?.integerValue.map(String.init) ?? "none")
        out += row("From", source["origin"]?.stringValue ?? "nothing yet")
        out += row("Last success", source["lastSuccess"]?.stringValue ?? "never", id: "policy-source-last-success")
        out += row("Last failure", failure, id: "policy-source-last-failure")
        return out + "</dl></section>"
    }

    private static func row(_ label: String, _ value: String, id: String? = nil) -> String {
        "<dt>\(e(label))</dt><dd\(id.map { #" id="\#($0)""# } ?? "")>\(e(value))</dd>"
    }

    private static func e(_ text: String) -> String { HTMLText.escape(text) }
}

extension JSONValue {
    /// The member `key` of an object (nil for other values), for reading the report back.
    fileprivate subscript(key: String) -> JSONValue? {
        guard case .object(let object) = self else { return nil }
        return object[key]
    }

    /// A number as it is (the latency figures are fractions of a second).
    fileprivate var doubleValue: Double? {
        guard case .number(let value) = self else { return nil }
        return value
    }
}
