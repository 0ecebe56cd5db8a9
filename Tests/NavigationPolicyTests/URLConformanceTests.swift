import Foundation
import Testing

@testable import NavigationPolicy

/// Runs the web-platform-tests `urltestdata.json` corpus (the copy in Resources/) against `URLRecord.parse`.
struct URLConformanceTests {
    struct Outcome {
        var passed = 0
        var total = 0
        var failures: [String] = []
        var passedWithBase = 0
        var totalWithBase = 0
    }

    static func runCorpus() throws -> Outcome {
        let entries = try TestResources.jsonArray("urltestdata.json")
        var outcome = Outcome()
        for entry in entries {
            guard let test = entry as? [String: Any], let input = test["input"] as? String else { continue }
            outcome.total += 1
            let baseString = test["base"] as? String
            if baseString != nil { outcome.totalWithBase += 1 }
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
                    if baseString != nil { outcome.passedWithBase += 1 }
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
                if baseString != nil { outcome.passedWithBase += 1 }
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
        print(
            "  with a base: \(outcome.passedWithBase)/\(outcome.totalWithBase); without: "
                + "\(outcome.passed - outcome.passedWithBase)/\(outcome.total - outcome.totalWithBase)")
        for failure in outcome.failures.prefix(30) {
            print("  FAIL \(failure)")
        }
        if outcome.failures.count > 30 {
            print("  ... and \(outcome.failures.count - 30) more")
        }
        // The whole corpus passes; any regression is a failure.
        #expect(outcome.passed == outcome.total)
    }
}
