import Foundation
import NavigationPolicy
import NavigationPolicyClient
import Testing

/// config/conformance/: the language-neutral decision vectors every port of the engine must pass.
/// The Swift client passes them, and they are what the generator makes of today's engine.
@Suite("Conformance vectors")
struct ConformanceVectorTests {
    static let files = ["default.json", "hosts.json", "host-classes.json", "match-forms.json", "url-patterns.json"]

    static func vector(_ name: String) throws -> [String: Any] {
        let url = BinaryRunner.packageRoot.appendingPathComponent("config/conformance/\(name)")
        return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    @Test("the Swift client decides every vector as expected", arguments: files)
    func clientPassesTheVectors(_ name: String) throws {
        let vector = try Self.vector(name)
        let bundle = try #require(vector["bundle"] as? String)
        let client = NavigationPolicyClient(configuration: .init(shippedBundle: .init(bytes: Array(bundle.utf8))))
        #expect(client.startupIssues.isEmpty)
        let cases = try #require(vector["cases"] as? [[String: Any]])
        #expect(cases.count > 30)
        for testCase in cases {
            let request = try #require(testCase["request"] as? [String: String])
            let expect = try #require(testCase["expect"] as? [String: Any])
            let navigationRequest = NavigationRequest(
                url: try #require(request["url"]), method: request["method"] ?? "GET",
                navigationType: try NavigationRequest.navigationType(from: request["navigationType"] ?? "other"),
                targetFrame: try NavigationRequest.targetFrame(from: request["targetFrame"] ?? "main"))
            let decision = client.decide(navigationRequest)
            let label = "\(name): \(testCase["name"] ?? "?")"
            #expect(decision.verdict.rawValue == expect["decision"] as? String, "\(label)")
            if expect["invalidRequest"] as? Bool == true {
                #expect(decision.handler == nil && decision.action == nil, "\(label)")
                #expect(throws: NavigationPolicyClient.DecisionError.self, "\(label)") {
                    try client.decision(for: navigationRequest)
                }
                continue
            }
            #expect(decision.handler == expect["handler"] as? String, "\(label)")
            #expect(decision.action == expect["action"] as? String, "\(label)")
            #expect(decision.location == expect["location"] as? String, "\(label)")
            #expect(decision.url == expect["url"] as? String, "\(label)")
            #expect(
                (decision.shadow ?? []).map { [$0.handler, $0.verdict.rawValue, $0.action ?? "null", $0.location ?? "null"] }
                    == Self.shadow(expect), "\(label)")
        }
    }

    /// The expected `shadow` list as [handler, decision, action, location] rows ("null" for null).
    static func shadow(_ expect: [String: Any]) -> [[String]] {
        (expect["shadow"] as? [[String: Any]] ?? []).map { entry in
            ["handler", "decision", "action", "location"].map { entry[$0] as? String ?? "null" }
        }
    }

    @Test("the daemon answers every vector at GET /v1/decide as recorded", arguments: files)
    func daemonPassesTheVectors(_ name: String) throws {
        let vector = try Self.vector(name)
        let bundle = try #require(vector["bundle"] as? String)
        let bundleObject = try #require(
            try JSONSerialization.jsonObject(with: Data(bundle.utf8)) as? [String: Any])
        let policy = try JSONSerialization.data(withJSONObject: try #require(bundleObject["policy"]))
        let daemon = try DaemonProcess(config: String(decoding: policy, as: UTF8.self))
        for testCase in try #require(vector["cases"] as? [[String: Any]]) {
            let request = try #require(testCase["request"] as? [String: String])
            let expect = try #require(testCase["expect"] as? [String: Any])
            let label = "\(name): \(testCase["name"] ?? "?")"
            var arguments = ["-G"]
            for key in ["url", "method", "navigationType", "targetFrame"] {
                arguments += ["--data-urlencode", "\(key)=\(request[key] ?? "")"]
            }
            let response = try Curl.request(daemon.baseURL + "/v1/decide", arguments)
            if expect["invalidRequest"] as? Bool == true {
                #expect(response.status == 400, "\(label)")
                continue
            }
            #expect(response.status == 200, "\(label): \(response.body)")
            let answer = try #require(response.json, "\(label)")
            for key in ["decision", "handler", "action", "location", "url"] {
                #expect(answer[key] as? String == expect[key] as? String, "\(label): \(key)")
            }
            #expect(Self.shadow(answer) == Self.shadow(expect), "\(label): shadow")
        }
    }

    @Test("match-forms.json exercises every match form, shadow mode, a cancel default, actions and locations")
    func matchFormsCoverage() throws {
        let vector = try Self.vector("match-forms.json")
        let bundle = try #require(vector["bundle"] as? String)
        let bundleObject = try #require(try JSONSerialization.jsonObject(with: Data(bundle.utf8)) as? [String: Any])
        let policy = try #require(bundleObject["policy"] as? [String: Any])
        #expect(policy["defaultDecision"] as? String == "cancel")
        let handlers = try #require(policy["handlers"] as? [[String: Any]])
        let fields = Set(handlers.flatMap { ($0["match"] as? [String: Any] ?? [:]).keys })
        let forms: Set = [
            "paths", "pathPrefixes", "pathPatterns", "schemes", "hosts", "methods", "navigationTypes", "targetFrames",
            "caseSensitive",
        ]
        #expect(forms.subtracting(fields).isEmpty, "match forms without a handler: \(forms.subtracting(fields))")
        #expect(handlers.contains { $0["mode"] as? String == "shadow" })
        #expect(handlers.contains { $0["location"] != nil } && handlers.contains { $0["action"] != nil })
        // Every match form is decided by some case, and the tricky inputs are there.
        let cases = try #require(vector["cases"] as? [[String: Any]])
        let deciders = Set(cases.compactMap { ($0["expect"] as? [String: Any])?["handler"] as? String })
        #expect(Set(handlers.compactMap { $0["name"] as? String }).subtracting(deciders) == ["admin-rollout"])
        let urls = cases.compactMap { ($0["request"] as? [String: String])?["url"] }
        for tricky in ["/admin/", "[::ffff:127.0.0.1]", "BÜCHER", "%2F", "app.example./"] {
            #expect(urls.contains { $0.contains(tricky) }, "\(tricky)")
        }
        #expect(cases.contains { ($0["request"] as? [String: String])?["method"] == "HEAD" })
        #expect(cases.contains { ($0["expect"] as? [String: Any])?["shadow"] != nil })
    }

    @Test func theVectorsAreUpToDateWithTheGenerator() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", BinaryRunner.packageRoot.appendingPathComponent("scripts/generate-conformance.py").path,
            "--binary", BinaryRunner.binary.path, "--check",
        ]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(message)")
    }
}
