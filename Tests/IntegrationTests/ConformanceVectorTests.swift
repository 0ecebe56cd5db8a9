import Foundation
import NavigationPolicy
import NavigationPolicyClient
import Testing

/// config/conformance/: the language-neutral decision vectors every port of the engine must pass.
/// The Swift client passes them, and they are what the generator makes of today's engine.
@Suite("Conformance vectors")
struct ConformanceVectorTests {
    static let files = ["default.json", "hosts.json", "host-classes.json"]

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
        }
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
