import Foundation
import JSONSupport
import NavigationPolicy

/// The body of `GET /v1/status`: the active chain with its live counters, the policy's
/// revision and reload history, intake store health, latency and error figures, and the listeners. The status page
/// renders the same object, on the server and then from its polling script.
struct StatusReport {
    let store: PolicyStore
    let metrics: Metrics
    let sources: StatusSources
    let intake: IntakeEndpoints

    /// Counts by decision (`allow`, `cancel`), since start and over the last minute.
    struct Counts {
        var sinceStart: [String: UInt64] = [:]
        var lastMinute: [String: UInt64] = [:]

        var jsonValue: JSONValue {
            .object([
                "sinceStart": Self.object(sinceStart),
                "lastMinute": Self.object(lastMinute),
            ])
        }

        /// Both verdicts always present, so clients need no default.
        private static func object(_ counts: [String: UInt64]) -> JSONValue {
            .object([
                "allow": .number(Double(counts["allow"] ?? 0)), "cancel": .number(Double(counts["cancel"] ?? 0)),
            ])
        }
    }

    /// The report as of now.
    func jsonObject() -> JSONObject {
        let snapshot = store.snapshot
        let decided = Self.byHandler(metrics.decisionCounts())
        let shadow = Self.byHandler(metrics.shadow.decisionCounts())
        var object = JSONObject()
        object.append("version", .string(metrics.version))
        object.append("startedAt", .string(Timestamp.iso8601(sources.startedAt)))
        object.append("generatedAt", .string(Timestamp.iso8601(Date())))
        object.append("policy", .object(policy(snapshot)))
        let links = snapshot?.policy.links ?? []
        object.append(
            "chain",
            .array(
                links.enumerated().map { index, link in
                    .object(Self.entry(link, position: index + 1, counts: (link.isShadow ? shadow : decided)[link.name]))
                }))
        object.append(
            "defaultDecision",
            .object([
                "decision": snapshot.map { .string($0.policy.defaultVerdict.rawValue) } ?? .null,
                "counts": (decided[""] ?? Counts()).jsonValue,
            ]))
        var totals = Counts()
        for counts in decided.values {
            totals.sinceStart.merge(counts.sinceStart, uniquingKeysWith: +)
            totals.lastMinute.merge(counts.lastMinute, uniquingKeysWith: +)
        }
        object.append("totals", totals.jsonValue)
        object.append("reloads", .object(reloads()))
        if let policySource = metrics.policySource.statusValue { object.append("policySource", policySource) }
        object.append("intake", .object(intake.statusObject))
        object.append("latency", .object(latency()))
        object.append("decisionLog", .object(decisionLog(snapshot)))
        object.append("errors", .object(errors()))
        object.append(
            "listeners",
            .array(
                sources.listeners.all.map { .object(["role": .string($0.role), "address": .string($0.address)]) }))
        return object
    }

    private func policy(_ snapshot: PolicySnapshot?) -> JSONObject {
        var object = JSONObject()
        object.append("revision", snapshot.map { .string($0.revision) } ?? .null)
        object.append("loadedAt", snapshot.map { .string(Timestamp.iso8601($0.loadedAt)) } ?? .null)
        object.append("configPath", .string(store.configPath))
        object.append("lastReloadError", Self.failure(store.lastReloadFailure))
        return object
    }

    /// `lastReloadError` as `/v1/policy` reports it: null, or when and why.
    static func failure(_ failure: PolicyStore.ReloadFailure?) -> JSONValue {
        guard let failure else { return .null }
        return .object([
            "at": .string(Timestamp.iso8601(failure.at)), "errors": .array(failure.errors.map(JSONValue.string)),
        ])
    }

    private func reloads() -> JSONObject {
        let counts = metrics.reloadCounts
        let recent = store.recentReloads.map { record -> JSONValue in
            var entry = JSONObject()
            entry.append("at", .string(Timestamp.iso8601(record.at)))
            for member in record.outcome.jsonObject.members { entry.append(member.key, member.value) }
            return .object(entry)
        }
        return [
            "counts": .object(
                JSONObject(
                    ["reloaded", "unchanged", "failed"].map { JSONMember($0, .number(Double(counts[$0] ?? 0))) })),
            "recent": .array(recent),
        ]
    }

    /// One chain link: what it matches, what it does, and how often it decided.
    private static func entry(_ link: ChainLink, position: Int, counts: Counts?) -> JSONObject {
        var object = JSONObject()
        object.append("position", .number(Double(position)))
        object.append("name", .string(link.name))
        object.append("type", .string(link.type))
        object.append("match", .string(link.matcher.summary))
        if let behavior = link.handler.cancelBehavior {
            object.append("decision", .string("cancel"))
            object.append("action", .string(behavior.action))
            object.append("location", behavior.location.map { .string($0.summary) } ?? .null)
        } else {
            object.append("decision", .string("allow"))
            object.append("action", .null)
            object.append("location", .null)
        }
        object.append("shadow", .bool(link.isShadow))
        object.append("counts", (counts ?? Counts()).jsonValue)
        return object
    }

    /// Decision counters regrouped by handler name ("" = the default decision).
    private static func byHandler(
        _ counts: (sinceStart: [Metrics.DecisionKey: UInt64], lastMinute: [Metrics.DecisionKey: UInt64])
    ) -> [String: Counts] {
        var result: [String: Counts] = [:]
        for (key, value) in counts.sinceStart {
            result[key.handler, default: Counts()].sinceStart[key.decision, default: 0] += value
        }
        for (key, value) in counts.lastMinute {
            result[key.handler, default: Counts()].lastMinute[key.decision, default: 0] += value
        }
        return result
    }
}
