import Foundation
import TestScratchSupport
import Testing

/// The Kubernetes manifests must not ship a working token, must not put several SQLite files
/// behind one Service, and must embed a policy the daemon accepts. The checks live in
/// scripts/check-deploy-manifests.py (PyYAML from Debian's python3-yaml); the schema itself is
/// checked by `make deploy-check` (kubernetes-validate).
@Suite("deploy manifests")
struct DeployManifestTests {
    static let checker = BinaryRunner.packageRoot.appendingPathComponent("scripts/check-deploy-manifests.py").path
    static let manifests = BinaryRunner.packageRoot.appendingPathComponent("deploy/kubernetes")

    /// Runs the checker (with `istio`, also the mesh wiring against that deploy/istio);
    /// returns its exit status and findings (stdout lines).
    static func check(_ directory: URL, istio: URL? = nil) throws -> (status: Int32, findings: [String]) {
        let mesh = istio.map { ["--istio", $0.path] } ?? []
        let result = try BinaryRunner.run(
            [checker, "--navpolicyd", BinaryRunner.binary.path] + mesh + [directory.path],
            executable: URL(fileURLWithPath: "/usr/bin/python3"))
        #expect(result.stderr.contains("manifests checked"), "the checker did not run: \(result.stderr)")
        return (result.status, result.lines.filter { !$0.isEmpty })
    }

    /// A copy of the shipped manifests with `edits` (file → change) applied, for the checker to refuse.
    static func editedCopy(_ edits: [String: (String) -> String]) throws -> URL {
        let copy = TestScratch.url.appendingPathComponent("navpolicyd-k8s-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: manifests, to: copy)
        for (file, change) in edits {
            let url = copy.appendingPathComponent(file)
            try change(try String(contentsOf: url, encoding: .utf8)).write(to: url, atomically: true, encoding: .utf8)
        }
        return copy
    }

    @Test("the shipped manifests pass: no token value, one intake replica on a claim, valid embedded policies")
    func shippedManifestsPass() throws {
        let result = try Self.check(Self.manifests)
        #expect(result.status == 0, "\(result.findings.joined(separator: "\n"))")
        #expect(result.findings.isEmpty)
    }

    @Test("the checker catches a scaled intake Deployment, a shipped token, an optional token and a mixed Service")
    func checkerCatchesTheUnsafeShapes() throws {
        let copy = try Self.editedCopy([
            "deployment.yaml": {
                $0.replacingOccurrences(of: "replicas: 1", with: "replicas: 2")
                    .replacingOccurrences(of: "key: admin-token", with: "key: admin-token\n                  optional: true")
            },
            "service.yaml": {
                $0.replacingOccurrences(of: "    app.kubernetes.io/component: intake\n  ports", with: "  ports")
            },
            "decision-only/configmap.yaml": { $0.replacingOccurrences(of: #""threads": 2"#, with: #""threads": "two""#) },
        ])
        try """
        apiVersion: v1
        kind: Secret
        metadata:
          name: navpolicyd-tokens
        stringData:
          admin-token: replace-me-with-at-least-16-random-characters
        """.write(to: copy.appendingPathComponent("secret.yaml"), atomically: true, encoding: .utf8)

        let result = try Self.check(copy)
        #expect(result.status == 1)
        let expected = [
            "runs share intake with 2 replicas", "Secret navpolicyd-tokens ships a value",
            "starts without NAVPOLICY_ADMIN_TOKEN", "selects pods with and without intake", "fails navpolicyd validate",
        ]
        for text in expected {
            #expect(result.findings.contains { $0.contains(text) }, "no finding \"\(text)\" in \(result.findings)")
        }
    }
}
