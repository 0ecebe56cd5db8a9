import Foundation
import Testing

@testable import NavigationPolicy

/// Runs the web-platform-tests `urltestdata.json` corpus against `URLRecord.parse`.
struct URLConformanceTests {
    /// Locates `shared/testdata/urltestdata.json`: `$URLTESTDATA` if set, otherwise walk up from
    /// this source file (package root, then its parents) looking for `shared/testdata/urltestdata.json`.
    static func locateTestData() -> URL? {
        let fm = FileManager.default
        if let env = ProcessInfo.processInfo.environment["URLTESTDATA"], fm.fileExists(atPath: env) {
            return URL(fileURLWithPath: env)
        }
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while dir.path != "/" && !dir.path.isEmpty {
            let candidate = dir.appendingPathComponent("shared/testdata/urltestdata.json")
            if fm.fileExists(atPath: candidate.path) { return candidate }
            let sibling = dir.appendingPathComponent("../shared/testdata/urltestdata.json").standardizedFileURL
            if fm.fileExists(atPath: sibling.path) { return sibling }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }

    struct Outcome {
        var passed = 0
        var total = 0
        var failures: [String] = []
    }

    static func runCorpus() throws -> Outcome {
        guard let url = locateTestData() else {
            Issue.record("urltestdata.json not found (set URLTESTDATA or place it at ../shared/testdata/)")
            return Outcome()
        }
        let data = try Data(contentsOf: url)
        guard let entries = try JSONSerialization.jsonObject(with: data) as? [Any] else {
            Issue.record("urltestdata.json is not a JSON array")
            return Outcome()
        }
        var outcome = Outcome()
        for entry in entries {
            guard let test = entry as? [String: Any], let input = test["input"] as? String else { continue }
            outcome.total += 1
            let baseString = test["base"] as? String
            let label = "\(input.debugDescription) base=\(baseString?.debugDescription ?? "nil")"

            var base: URLRecord? = nil
            if let baseString {
                do {
                    base = try URLRecord.parse(baseString)
                } catch {
                    outcome.failures.append("\(label): base failed to parse: \(error)")
                    continue
                }
            }
            let expectFailure = (test["failure"] as? Bool) ?? false
            let parsed: URLRecord
            do {
                parsed = try URLRecord.parse(input, base: base)
            } catch {
                if expectFailure {
                    outcome.passed += 1
                } else {
                    outcome.failures.append("\(label): unexpected failure: \(error)")
                }
                continue
            }
            if expectFailure {
                outcome.failures.append("\(label): expected failure, got \(parsed.href.debugDescription)")
                continue
            }
            let actual: [String: String] = [
                "href": parsed.href,
                "protocol": parsed.protocolString,
                "username": parsed.username,
                "password": parsed.password,
                "host": parsed.hostWithPort,
                "hostname": parsed.hostname,
                "port": parsed.portString,
                "pathname": parsed.pathname,
                "search": parsed.search,
                "hash": parsed.hash,
                "origin": parsed.origin,
            ]
            var mismatches: [String] = []
            for key in [
                "href", "protocol", "username", "password", "host", "hostname", "port",
                "pathname", "search", "hash", "origin",
            ] {
                guard let expected = test[key] as? String else { continue }
                let got = actual[key] ?? ""
                if got != expected {
                    mismatches.append("\(key): expected \(expected.debugDescription) got \(got.debugDescription)")
                }
            }
            // Re-parsing the serialization must be idempotent (href is a fixed point).
            if mismatches.isEmpty, let again = try? URLRecord.parse(parsed.href), again.href != parsed.href {
                mismatches.append("href not idempotent: \(again.href.debugDescription)")
            }
            // The component getters must describe the same URL as href.
            let rebuilt = URLRecord(
                scheme: parsed.scheme, username: parsed.username, password: parsed.password,
                host: parsed.host, port: parsed.port, path: parsed.path,
                query: parsed.query, fragment: parsed.fragment)
            if mismatches.isEmpty, rebuilt != parsed {
                mismatches.append("components do not rebuild the record: \(rebuilt.href.debugDescription)")
            }
            if mismatches.isEmpty {
                outcome.passed += 1
            } else {
                outcome.failures.append("\(label): " + mismatches.joined(separator: "; "))
            }
        }
        return outcome
    }

    @Test func wptURLTestData() throws {
        let outcome = try Self.runCorpus()
        #expect(outcome.total > 0)
        guard outcome.total > 0 else { return }
        let passRate = Double(outcome.passed) / Double(outcome.total)
        let pct = (passRate * 1000).rounded() / 10
        print("WPT urltestdata: \(outcome.passed)/\(outcome.total) passed (\(pct)%)")
        for failure in outcome.failures.prefix(30) {
            print("  FAIL \(failure)")
        }
        if outcome.failures.count > 30 {
            print("  ... and \(outcome.failures.count - 30) more")
        }
        #expect(passRate >= 0.98)
    }
}
