import JSONSupport
import Testing

@testable import NavigationPolicy

/// Runs the web-platform-tests URLPattern data (`Resources/urlpatterntestdata.json`, provenance in
/// `Resources/README-urlpattern.txt`) the way WPT's `urlpattern.any.js` does: the constructor
/// (or its error), every component's pattern string, and `test()` / `exec()` with each
/// component's `input` and `groups`.
struct URLPatternWPTTests {
    /// Entries known not to pass, by index, with the reason. The suite fails if any other entry
    /// fails, or if one listed here starts passing (so the list stays true).
    static let knownFailures: [Int: String] = [:]

    /// The number of entries that pass exactly; the suite fails if fewer do.
    static let passingFloor = 352

    static let components = URLPatternInit.componentNames

    struct Outcome {
        var passed: [Int] = []
        var failures: [Int: String] = [:]
    }

    /// Runs every entry of `Resources/<file>` (the vendored WPT data by default).
    static func run(_ file: String = "urlpatterntestdata.json") throws -> Outcome {
        let data = try TestResources.data(file)
        guard case .array(let entries) = try JSONParser(maximumDepth: 64, rejectsDuplicateMembers: false).parse(data)
        else {
            throw TestResources.MissingResource(name: "\(file) (not a JSON array)")
        }
        var outcome = Outcome()
        for (index, entry) in entries.enumerated() {
            guard let object = entry.objectValue else { continue }
            if let failure = check(object) {
                outcome.failures[index] = failure
            } else {
                outcome.passed.append(index)
            }
        }
        return outcome
    }

    /// nil when the entry passes, else what differed.
    static func check(_ entry: JSONObject) -> String? {
        let patternArguments = entry["pattern"]?.arrayValue ?? []
        let pattern: URLPattern
        do {
            pattern = try URLPattern(arguments: patternArguments)
        } catch {
            return entry["expected_obj"]?.stringValue == "error" ? nil : "constructor threw: \(error)"
        }
        if entry["expected_obj"]?.stringValue == "error" { return "constructor did not throw" }
        if let failure = checkPatternStrings(pattern, entry) { return failure }
        guard let expectedMatch = entry["expected_match"] else { return nil }
        let inputArguments = entry["inputs"]?.arrayValue ?? []
        let result: URLPatternResult?
        let tested: Bool
        do {
            result = try pattern.exec(arguments: inputArguments)
            tested = try pattern.test(arguments: inputArguments)
        } catch {
            return expectedMatch.stringValue == "error" ? nil : "exec threw: \(error)"
        }
        if expectedMatch.stringValue == "error" { return "exec did not throw" }
        guard case .object(let expected) = expectedMatch else {
            if result != nil { return "expected no match, got \(describe(result))" }
            return tested ? "test() is true but exec() is null" : nil
        }
        guard let result else { return "expected a match, got null" }
        if !tested { return "test() is false but exec() matched" }
        let expectedInputs = expected["inputs"] ?? .array(inputArguments)
        if JSONValue.array(result.inputs.map(\.json)) != expectedInputs {
            return "inputs: expected \(expectedInputs), got \(result.inputs.map(\.json))"
        }
        let exactlyEmpty = Set((entry["exactly_empty_components"]?.arrayValue ?? []).compactMap(\.stringValue))
        for component in components {
            let fallback: JSONValue =
                exactlyEmpty.contains(component)
                ? .object(["input": .string(""), "groups": .object([:])])
                : .object(["input": .string(""), "groups": .object(["0": .string("")])])
            let want = expected[component] ?? fallback
            guard let got = result[component: component] else { return "\(component): missing" }
            if want.objectValue?["input"] != .string(got.input) {
                return "\(component) input: expected \(want.objectValue?["input"] ?? .null), got \(got.input.debugDescription)"
            }
            var wantGroups: [String: JSONValue] = [:]
            for member in want.objectValue?["groups"]?.objectValue?.members ?? [] { wantGroups[member.key] = member.value }
            var gotGroups: [String: JSONValue] = [:]
            for group in got.groups { gotGroups[group.name] = group.value.map { .string($0) } ?? .null }
            if wantGroups != gotGroups { return "\(component) groups: expected \(wantGroups), got \(gotGroups)" }
        }
        return nil
    }

    /// The WPT harness's rule for each component's expected pattern string when `expected_obj`
    /// does not list it: "" if exactly empty, the dictionary's own value, "*" when a more
    /// significant component is given, the base URL's value, else "*".
    static func checkPatternStrings(_ pattern: URLPattern, _ entry: JSONObject) -> String? {
        let expectedObject = entry["expected_obj"]?.objectValue ?? JSONObject()
        let exactlyEmpty = Set((entry["exactly_empty_components"]?.arrayValue ?? []).compactMap(\.stringValue))
        let arguments = entry["pattern"]?.arrayValue ?? []
        let dictionary = arguments.first?.objectValue
        var baseURLString = arguments.count > 1 ? arguments[1].stringValue : nil
        if let inner = dictionary?["baseURL"]?.stringValue { baseURLString = inner }
        let base = baseURLString.flatMap { try? URLRecord.parse($0) }
        let earlier: [String: [String]] = [
            "protocol": [], "username": [], "password": [], "hostname": ["protocol"],
            "port": ["protocol", "hostname"], "pathname": ["protocol", "hostname", "port"],
            "search": ["protocol", "hostname", "port", "pathname"],
            "hash": ["protocol", "hostname", "port", "pathname", "search"],
        ]
        for component in components {
            var expected = expectedObject[component]?.stringValue
            if expected == nil {
                if exactlyEmpty.contains(component) {
                    expected = ""
                } else if let own = dictionary?[component]?.stringValue, !own.isEmpty {
                    expected = own
                } else if let dictionary, (earlier[component] ?? []).contains(where: { dictionary[$0] != nil }) {
                    expected = "*"
                } else if let base, component != "username", component != "password" {
                    expected =
                        switch component {
                        case "protocol": base.scheme
                        case "hostname": base.hostname
                        case "port": base.portString
                        case "pathname": base.pathname
                        case "search": String(base.search.dropFirst())
                        default: String(base.hash.dropFirst())
                        }
                } else {
                    expected = "*"
                }
            }
            let got = pattern.patternString(component)
            if got != expected {
                return "\(component) pattern: expected \(expected.debugDescription), got \(got.debugDescription)"
            }
        }
        return nil
    }

    static func describe(_ result: URLPatternResult?) -> String {
        guard let result else { return "null" }
        var writer = JSONWriter()
        writer.write(result.json)
        return writer.string
    }

    @Test func wptURLPatternData() throws {
        let outcome = try Self.run()
        let total = outcome.passed.count + outcome.failures.count
        print("URLPattern WPT: \(outcome.passed.count) / \(total) pass")
        for (index, failure) in outcome.failures.sorted(by: { $0.key < $1.key }) where Self.knownFailures[index] == nil {
            Issue.record("entry \(index): \(failure)")
        }
        for index in Self.knownFailures.keys.sorted() where outcome.failures[index] == nil {
            Issue.record("entry \(index) is listed as a known failure but passes: take it off the list")
        }
        #expect(total == 352)
        #expect(outcome.passed.count >= Self.passingFloor)
    }

    /// Fixed ports as the standard reads them since whatwg/urlpattern PR 286 (issue 285), which
    /// the vendored data predates: `Resources/urlpatterntestdata-ports.json` (provenance in
    /// `README-urlpattern.txt`), run by the same checks. Every entry must pass.
    @Test func fixedPortData() throws {
        try Self.expectEveryEntryPasses("urlpatterntestdata-ports.json", count: 22, label: "fixed-port data")
    }

    /// Runs `Resources/<file>` (a data file of our own beside the vendored one), records every
    /// entry that fails, and expects `count` entries to pass.
    static func expectEveryEntryPasses(_ file: String, count: Int, label: String) throws {
        let outcome = try run(file)
        print("URLPattern \(label): \(outcome.passed.count) / \(outcome.passed.count + outcome.failures.count) pass")
        for (index, failure) in outcome.failures.sorted(by: { $0.key < $1.key }) {
            Issue.record("\(label) entry \(index): \(failure)")
        }
        #expect(outcome.passed.count == count)
    }
}
