import Foundation
import NavigationPolicy
import NavigationPolicyClient
import TestScratchSupport
import Testing

/// A handler's `response` survives every form a policy ships in: `navpolicyd compile` (an
/// image, its large lists moved into tables) and `navpolicyd bundle`, JSON and compiled, read
/// back as an app reads them (``VerifiedBundle``). A form that dropped it would answer a 410
/// cancel as a 403.
@Suite("Handler response through compile and bundles", .tags(.live))
struct DenialResponseBundleTests {
    /// A handler with enough hosts to be split into an image table, carrying a response.
    static let handler: String = {
        let hosts = (0..<300).map { "\"h\($0).retired.test\"" }.joined(separator: ",")
        return #"{"name": "retired", "type": "cancel", "match": {"hosts": [\#(hosts)]}, "#
            + #""response": {"status": 410, "headers": {"Link": "<https://a.example/>"}, "removeRequestHeaders": ["Cookie"]}},"#
    }()

    @Test("compile, bundle (JSON), bundle --config IMAGE (compiled): the decision still carries the response")
    func survives() throws {
        let (jsonPath, imagePath) = try CompiledPolicyLiveTests.compiled(
            CompiledPolicyLiveTests.config(extraHandler: Self.handler))
        let key = try BundleTrustLiveTests.Key()
        let stamp = ["--issued-at", "4102444800", "--policy-version", "3", "--sign", key.path]
        let jsonBundle = TestScratch.path("response-json", suffix: ".json")
        let compiledBundle = TestScratch.path("response-compiled", suffix: ".bundle")
        for (config, output) in [(jsonPath, jsonBundle), (imagePath, compiledBundle)] {
            let result = try BinaryRunner.run(["bundle", "--config", config, "--output", output] + stamp)
            #expect(result.status == 0, "\(result.stderr)")
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
            let bundle = try VerifiedBundle(bytes: bytes, signature: nil, verifier: nil)
            let decision = try bundle.policy.decide(NavigationRequest(url: "https://h299.retired.test/x"))
            #expect(decision.handler == "retired", "\(output)")
            #expect(decision.response?.status == 410, "\(output): \(decision)")
            #expect(decision.response?.headers.first?.name == "link")
            #expect(decision.response?.removeRequestHeaders == ["cookie"])
        }
    }
}
