import Foundation
public import JSONSupport
public import NavigationPolicy
import PolicyAuthoring

/// `POST /v1/policy/diff`: a candidate config against the live policy, over posted requests
/// or the recent window of the decision log. Pure apart from reading the log tail, so the
/// route only authenticates, calls ``PolicyDiffRequest/report(body:live:compiler:recentLog:)``
/// and renders the result or the error.
public enum PolicyDiffRequest {
    /// Why a diff request was refused; each maps to one problem type.
    public typealias Failure = AdminRequestFailure

    /// Most requests one call replays, posted or from the log: keeps one admin call bounded.
    public static let maximumRequests = 100_000

    /// Body: `{"config": {…candidate…}, "requests": [{request}, …], "examples": 3}`; without
    /// `requests`, the navigations of `recentLog()` (decision-log lines, oldest first) are replayed.
    /// Returns the ``PolicyDiff`` report plus `"source": "posted" | "decisionLog"`.
    public static func report(
        body: [UInt8], live: CompiledPolicy, compiler: PolicyCompiler, recentLog: () -> [String]
    ) -> Result<JSONObject, Failure> {
        let object: JSONObject
        switch AdminRequestFailure.object(of: body, expected: "expected an object with \"config\" and optional \"requests\"") {
        case .success(let parsed): object = parsed
        case .failure(let failure): return .failure(failure)
        }
        for member in object.members where !["config", "requests", "examples"].containsSameUTF8(member.key) {
            return .failure(
                .invalidRequest("unknown field; expected \"config\", \"requests\" or \"examples\"", field: member.key))
        }
        guard let config = object["config"], config.objectValue != nil else {
            return .failure(.invalidRequest("required: the candidate config as an object", field: "config"))
        }
        let candidate: CompiledPolicy
        do {
            candidate = try compiler.compile(config)
        } catch {
            return .failure(.invalidConfig(error.issues.map(\.description)))
        }
        var examples = 3
        if let value = object["examples"] {
            guard let number = value.integerValue, (0...100).contains(number) else {
                return .failure(.invalidRequest("a whole number from 0 to 100", field: "examples"))
            }
            examples = number
        }
        var diff = PolicyDiff(old: live, new: candidate, examplesPerGroup: examples)
        var source = "posted"
        var notReplayed: JSONObject?
        if let posted = object["requests"] {
            // An empty list asks for a report on nothing: a 200 with zero counts would read as
            // "the candidate changes nothing".
            guard let list = posted.arrayValue, (1...maximumRequests).contains(list.count) else {
                return .failure(
                    .invalidRequest(
                        "an array of 1 to \(maximumRequests) request objects (omit it to replay the decision log)",
                        field: "requests"))
            }
            for (index, element) in list.enumerated() {
                guard let request = element.objectValue else {
                    return .failure(.invalidRequest("expected a request object", field: "requests/\(index)"))
                }
                // A posted request must be one the policy can decide, as on POST /v1/decide: an
                // invalid one is the caller's mistake (400), not a change to report. Replayed log
                // lines are counted as `invalid` instead (old logs may hold anything).
                do {
                    let navigation = try NavigationRequest(json: request)
                    _ = try CanonicalRequest(navigation)
                    diff.add(navigation)
                } catch {
                    return .failure(.invalidRequest(error.reason, field: "requests/\(index)/\(error.field)"))
                }
            }
        } else {
            source = "decisionLog"
            let lines = recentLog().suffix(maximumRequests)
            var replayed = 0
            var redacted = 0
            var truncated = 0
            for line in lines {
                // Lines the daemon did not write whole (a torn last line) are skipped, not fatal.
                guard let value = try? JSONParser().parse(line) else { continue }
                // A `redacted` or `truncated` line's URLs are not the navigation decided
                // (DecisionRecorder): counted in `notReplayed`, not replayed.
                if value.objectValue?["redacted"] != nil {
                    redacted += 1
                    continue
                }
                if value.objectValue?["truncated"] != nil {
                    truncated += 1
                    continue
                }
                guard let request = value.objectValue?["request"]?.objectValue,
                    let navigation = try? NavigationRequest(json: request)
                else { continue }
                diff.add(navigation)
                replayed += 1
            }
            // Nothing replayed is no evidence that the candidate is safe: say so, not 200 "0 changed".
            guard replayed > 0 else { return .failure(.nothingToReplay(linesRead: lines.count)) }
            notReplayed = ["redacted": .number(Double(redacted)), "truncated": .number(Double(truncated))]
        }
        var report = diff.jsonObject
        if let notReplayed { report.append("notReplayed", .object(notReplayed)) }
        report.append("source", .string(source))
        return .success(report)
    }

    /// The last lines of a decision-log file, reading at most `maximumBytes` from its end.
    public static func recentLogLines(path: String, maximumBytes: Int = 64 << 20) -> [String] {
        guard let handle = FileHandle(forReadingAtPath: path) else { return [] }
        defer { try? handle.close() }
        guard let end = try? handle.seekToEnd() else { return [] }
        let start = end > UInt64(maximumBytes) ? end - UInt64(maximumBytes) : 0
        guard (try? handle.seek(toOffset: start)) != nil, let data = try? handle.readToEnd() else { return [] }
        var lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        // Reading from the middle of the file starts mid-line.
        if start > 0, !lines.isEmpty { lines.removeFirst() }
        return lines
    }
}
