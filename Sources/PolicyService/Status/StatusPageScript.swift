import JSONSupport

/// The status page's script and style sheet, inlined into the page and allowed by their
/// SHA-256 hashes in the Content-Security-Policy: no `'unsafe-inline'`, no extra routes,
/// and any other script (one smuggled in through config text) is refused by the browser.
///
/// The script polls `v1/status` (relative, so the page also works behind a path prefix)
/// and rebuilds `<main>` with DOM calls only: text goes in through text nodes, never
/// `innerHTML`, so config values cannot become markup on the client either. It builds the
/// same markup as ``StatusPage``; the live test checks both.
enum StatusPageAssets {
    /// Seconds between two polls.
    static let refreshSeconds = 2

    static let script = """
        "use strict";
        (() => {
          const source = "v1/status";
          const el = (tag, attributes, ...children) => {
            const node = document.createElement(tag);
            for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, value);
            for (const child of children) {
              node.append(child instanceof Node ? child : child === null || child === undefined ? "" : String(child));
            }
            return node;
          };
          const append = (parent, ...children) => { for (const child of children) parent.appendChild(child); return parent; };
          const row = (label, value, id) => [el("dt", {}, label), el("dd", id ? { id } : {}, value)];
          const counts = (counts, decisions) => {
            const table = el("table", { class: "counts" });
            append(table, append(el("tr"), el("th", {}, ""), el("th", {}, "since start"), el("th", {}, "last minute")));
            for (const decision of decisions) {
              append(table, append(el("tr", { class: decision }), el("th", {}, decision),
                el("td", { class: "since-start" }, counts.sinceStart[decision]),
                el("td", { class: "last-minute" }, counts.lastMinute[decision])));
            }
            return table;
          };
          const shown = (decision, counts) =>
            ["allow", "cancel"].filter((d) => d === decision || counts.sinceStart[d] > 0);
          const healthText = (health) =>
            health === null ? "not reported" : health.fault ? health.status + " (" + health.fault + ")" : health.status;
          const duration = (seconds) => {
            if (seconds === null) return "–";
            const [value, unit] = seconds < 0.001 ? [seconds * 1e6, "µs"] : seconds < 1 ? [seconds * 1e3, "ms"] : [seconds, "s"];
            const tenths = Math.round(value * 10);
            return Math.floor(tenths / 10) + "." + (tenths % 10) + " " + unit;
          };
          const errorLabels = \(errorLabelsJSON);
          const render = (status) => {
            const main = el("main", { id: "status" });
            const policy = status.policy;
            const error = policy.lastReloadError;
            const dl = append(el("dl"), ...row("Revision", policy.revision ?? "none", "revision"),
              ...row("Loaded", policy.loadedAt ?? "never", "loaded-at"), ...row("Config", policy.configPath),
              ...row("Last reload error", error ? error.at + ": " + error.errors.join("; ") : "none", "last-reload-error"));
            append(main, append(el("section", { id: "policy" }), el("h2", {}, "Policy"), dl));
            const chain = el("ol", { class: "chain" });
            for (const link of status.chain) {
              const item = el("li", { class: link.shadow ? "link shadow" : "link", "data-handler": link.name });
              const head = el("div", { class: "head" }, el("span", { class: "position" }, link.position + "."), " ",
                el("span", { class: "name" }, link.name), " ", el("span", { class: "type" }, link.type));
              if (link.shadow) append(head, el("span", { class: "badge" }, "shadow"));
              const does = link.decision + (link.action ? " · " + link.action : "") + (link.location ? " → " + link.location : "");
              append(item, head, el("div", { class: "match" }, link.match), el("div", { class: "does" }, (link.shadow ? "would " : "") + does),
                counts(link.counts, shown(link.decision, link.counts)));
              append(chain, item);
            }
            const fallback = status.defaultDecision;
            append(chain, append(el("li", { class: "link default", "data-handler": "" }),
              el("div", { class: "head" }, el("span", { class: "name" }, "default decision")),
              el("div", { class: "does" }, fallback.decision ?? "none"), counts(fallback.counts, [fallback.decision ?? "allow"])));
            append(main, append(el("section", { id: "chain" }), el("h2", {}, "Chain"), chain,
              el("p", { class: "totals" }, "All decisions: " + status.totals.sinceStart.allow + " allow, " +
                status.totals.sinceStart.cancel + " cancel since start; " + status.totals.lastMinute.allow + " allow, " +
                status.totals.lastMinute.cancel + " cancel in the last minute")));
            const reloads = append(el("table", { class: "reloads" }),
              append(el("tr"), el("th", {}, "at"), el("th", {}, "trigger"), el("th", {}, "result"), el("th", {}, "errors")));
            for (const reload of status.reloads.recent) {
              append(reloads, append(el("tr", { class: reload.result }), el("td", {}, reload.at), el("td", {}, reload.trigger),
                el("td", {}, reload.result), el("td", {}, reload.errors.join("; "))));
            }
            const c = status.reloads.counts;
            append(main, append(el("section", { id: "reloads" }), el("h2", {}, "Reloads"),
              el("p", {}, c.reloaded + " reloaded, " + c.unchanged + " unchanged, " + c.failed + " failed since start"), reloads));
            const source = status.policySource;
            if (source) {
              const failure = source.lastFailure ? [source.lastFailure.at, source.lastFailure.reason, source.lastFailure.detail].join(": ") : "none";
              append(main, append(el("section", { id: "policy-source" }), el("h2", {}, "Policy source"),
                append(el("dl"), ...row("URL", source.url), ...row("Revision", source.revision ?? "none", "policy-source-revision"),
                  ...row("policyVersion", source.policyVersion ?? "none"), ...row("From", source.origin ?? "nothing yet"),
                  ...row("Last success", source.lastSuccess ?? "never", "policy-source-last-success"),
                  ...row("Last failure", failure, "policy-source-last-failure"))));
            }
            const intake = status.intake;
            append(main, append(el("section", { id: "intake" }), el("h2", {}, "Intake store"),
              append(el("dl"), ...row("State", intake.state, "intake-state"), ...row("Database", intake.database ?? "none"),
                ...row("Token required", intake.tokenRequired ? "yes" : "no"),
                ...row("Health", healthText(intake.health), "intake-health"))));
            const latency = append(el("table", { class: "latency" }),
              append(el("tr"), el("th", {}, ""), el("th", {}, "count"), el("th", {}, "p50"), el("th", {}, "p99")));
            const figures = status.latency.decisions.map((f) => ["decide in chain: " + f.frontend, f])
              .concat(status.latency.http.map((f) => ["HTTP " + f.endpoint, f]));
            for (const [label, f] of figures) {
              append(latency, append(el("tr"), el("th", {}, label), el("td", {}, f.count), el("td", {}, duration(f.p50Seconds)),
                el("td", {}, duration(f.p99Seconds))));
            }
            append(main, append(el("section", { id: "latency" }), el("h2", {}, "Latency"), latency));
            const log = status.decisionLog;
            const logRows = log.enabled
              ? [...row("State", "on", "decision-log-state"), ...row("Path", log.path, "decision-log-path"),
                ...row("Size", log.bytes + " of " + log.maxBytes + " bytes (decisionLog.maxBytes)", "decision-log-size"),
                ...row("Redaction", log.redaction ? "query parameters by name and passwords" : "passwords only",
                  "decision-log-redaction"),
                ...row("Lines dropped", log.dropped, "decision-log-dropped")]
              : row("State", "off", "decision-log-state");
            append(main, append(el("section", { id: "decision-log" }), el("h2", {}, "Decision log"),
              append(el("dl"), ...logRows)));
            const errors = el("dl");
            for (const [key, label] of errorLabels) append(errors, ...row(label, status.errors[key], "errors-" + key));
            append(main, append(el("section", { id: "errors" }), el("h2", {}, "Errors since start"), errors));
            const listeners = el("ul", { class: "listeners" });
            for (const listener of status.listeners) append(listeners, el("li", {}, listener.role + " " + listener.address));
            append(main, append(el("section", { id: "listeners" }), el("h2", {}, "Listeners"), listeners));
            document.getElementById("status").replaceWith(main);
            document.getElementById("version").textContent = status.version;
            document.getElementById("started-at").textContent = status.startedAt;
            document.getElementById("updated").textContent = status.generatedAt;
            document.getElementById("refresh-state").textContent = "live";
          };
          const refresh = async () => {
            try {
              const response = await fetch(source, { headers: { Accept: "application/json" }, cache: "no-store" });
              if (!response.ok) throw new Error("HTTP " + response.status);
              render(await response.json());
            } catch (error) {
              document.getElementById("refresh-state").textContent = "refresh failed (" + error.message + "); retrying";
            }
          };
          refresh();
          setInterval(refresh, \(refreshSeconds * 1000));
        })();
        """

    /// ``StatusPage/errorLabels`` as a JS array literal, so both renderings name the figures alike.
    private static var errorLabelsJSON: String {
        JSONValue.array(StatusPage.errorLabels.map { .array([.string($0.0), .string($0.1)]) }).serialized
    }

    static let style = """
        body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #1d2329; background: #fafbfc; }
        h1 { font-size: 1.4em; margin: 0; } h2 { font-size: 1.1em; margin: 1.2em 0 .4em; }
        header p, footer { color: #57606a; }
        dl { display: grid; grid-template-columns: max-content auto; gap: .2em 1em; margin: 0; }
        dt { font-weight: 600; } dd { margin: 0; font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
        ol.chain { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: .6em 1.6em; align-items: stretch; }
        .link { position: relative; border: 1px solid #8c959f; border-radius: 6px; padding: .5em .7em; background: #fff;
          min-width: 14em; }
        .link + .link::before { content: "→"; position: absolute; left: -1.3em; top: 40%; color: #57606a; font-size: 1.2em; }
        .link.shadow { border-style: dashed; background: #f6f8fa; }
        .link.default { background: #eef2f6; }
        .head .name { font-weight: 600; } .type { color: #57606a; }
        .badge { margin-left: .5em; font-size: .8em; padding: 0 .4em; border-radius: 4px; background: #d4a72c; color: #fff; }
        .match, .does { font-family: ui-monospace, monospace; font-size: .9em; overflow-wrap: anywhere; }
        table { border-collapse: collapse; margin-top: .3em; } th, td { padding: .1em .5em; text-align: right; }
        table.reloads td, table.reloads th { text-align: left; border-bottom: 1px solid #d0d7de; }
        tr.failed td { color: #b42318; }
        """
}
