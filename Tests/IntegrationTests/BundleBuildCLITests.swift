import Foundation
import TestScratchSupport
import Testing

/// `navpolicyd bundle` writing bundles, from outside: a bundle that would be written already
/// expired is refused (ISO dates, as `bundle verify` prints them) unless `--allow-expired`, and
/// `--compiled` from JSON (compiled straight to the image) writes the very bundle that
/// `compile` then `bundle --config IMAGE` writes.
@Suite("navpolicyd bundle: expiry and the compiled path")
struct BundleBuildCLITests {
    @Test("--issued-at in milliseconds or past 2^53 - 1 with its lifetime is refused (outside attack): nothing is written")
    func issuedAtOutOfRange() throws {
        let key = try BundleTrustLiveTests.Key()
        let path = TestScratch.path("bundle-issued-at", suffix: ".json")
        // Milliseconds by mistake: the default policyVersion would pin every app to this bundle.
        // 2^53 - 1: expiresAt was written as a float no app accepts.
        let milliseconds = String(Int(Date().timeIntervalSince1970) * 1_000)
        for issuedAt in [milliseconds, "9007199254740991", "253402300800"] {
            let refused = try BinaryRunner.run([
                "bundle", "--config", "config/navpolicy.json", "--sign", key.path, "--issued-at", issuedAt, "--output", path,
            ])
            #expect(refused.status == 2, "\(issuedAt): \(refused.stderr)")
            #expect(refused.stderr.contains("--issued-at"), "\(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: path), "nothing is written")
        }
        let lastSecond = try BinaryRunner.run([
            "bundle", "--config", "config/navpolicy.json", "--sign", key.path, "--issued-at", "253402300799", "--lifetime",
            "31536000", "--output", path,
        ])
        #expect(lastSecond.status == 0, "\(lastSecond.stderr)")
        let verified = try BinaryRunner.run(["bundle", "verify", path, "--bundle-key", "\(key.keyId):\(key.publicKeyBase64)"])
        #expect(verified.status == 0, "an exact expiresAt: \(verified.stdout)\(verified.stderr)")
    }

    @Test("an already expired bundle is refused with exit 2 and ISO dates; --allow-expired writes it for refusal tests")
    func expiredIsRefused() throws {
        let key = try BundleTrustLiveTests.Key()
        let path = TestScratch.path("bundle-expired", suffix: ".json")
        let stamp = ["--issued-at", "1000", "--lifetime", "60", "--sign", key.path]
        let refused = try BinaryRunner.run(["bundle", "--config", "config/navpolicy.json", "--output", path] + stamp)
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(refused.stderr.hasPrefix("navpolicyd bundle: the bundle would be written already expired"), "\(refused.stderr)")
        #expect(refused.stderr.contains("expiresAt 1970-01-01T00:17:40Z (issuedAt 1970-01-01T00:16:40Z + 60 s)"))
        #expect(refused.stderr.contains("--allow-expired"))
        #expect(!FileManager.default.fileExists(atPath: path), "nothing is written")
        let compiled = try BinaryRunner.run(["bundle", "--config", "config/navpolicy.json", "--compiled"] + stamp)
        #expect(compiled.status == 2 && compiled.stdout.isEmpty, "compiled bundles too")

        let allowed = try BinaryRunner.run(
            ["bundle", "--config", "config/navpolicy.json", "--output", path, "--allow-expired"] + stamp)
        #expect(allowed.status == 0, "\(allowed.stderr)")
        let verified = try BinaryRunner.run(["bundle", "verify", path, "--bundle-key", "\(key.keyId):\(key.publicKeyBase64)"])
        #expect(verified.status == 2)
        #expect(verified.stderr.contains("expired"), "\(verified.stderr)")

        // Issued now (the default), or an hour ago for a day: valid, written without the flag.
        let hourAgo = String(Int(Date().timeIntervalSince1970) - 3600)
        for flags in [[], ["--issued-at", hourAgo, "--lifetime", "86400"]] {
            let fresh = try BinaryRunner.run(["bundle", "--config", "config/navpolicy.json"] + flags)
            #expect(fresh.status == 0, "\(flags): \(fresh.stderr)")
        }
        let misplaced = try BinaryRunner.run(["bundle", "inspect", path, "--allow-expired"])
        #expect(misplaced.status == 2, "--allow-expired builds; inspect reads")
    }

    @Test("bundle --compiled from JSON writes the bytes compile + bundle --config IMAGE write; an invalid config exits 2")
    func compiledFromJSONIsTheImageBundle() throws {
        let (jsonPath, imagePath) = try CompiledPolicyLiveTests.compiled(CompiledPolicyLiveTests.config())
        let key = try BundleTrustLiveTests.Key()
        let stamp = ["--issued-at", "4102444800", "--policy-version", "7", "--sign", key.path]
        let fromJSON = TestScratch.path("bundle-from-json", suffix: ".bundle")
        let fromImage = TestScratch.path("bundle-from-image", suffix: ".bundle")
        let direct = try BinaryRunner.run(["bundle", "--config", jsonPath, "--compiled", "--output", fromJSON] + stamp)
        #expect(direct.status == 0, "\(direct.stderr)")
        let viaImage = try BinaryRunner.run(["bundle", "--config", imagePath, "--output", fromImage] + stamp)
        #expect(viaImage.status == 0, "\(viaImage.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: fromJSON)) == Data(contentsOf: URL(fileURLWithPath: fromImage)))
        #expect(
            try String(contentsOfFile: fromJSON + ".sig", encoding: .utf8)
                == String(contentsOfFile: fromImage + ".sig", encoding: .utf8))

        // The config's server.bundle settings still reach the stamp (read from the image).
        let lifetime = try BinaryRunner.temporaryFile(
            CompiledPolicyLiveTests.config().replacingOccurrences(
                of: #""server": {"watchConfig": false}"#,
                with: #""server": {"watchConfig": false, "bundle": {"lifetimeSeconds": 3600, "policyVersion": 42}}"#))
        let inspectedPath = TestScratch.path("bundle-settings", suffix: ".bundle")
        #expect(
            try BinaryRunner.run([
                "bundle", "--config", lifetime, "--compiled", "--issued-at", "4102444800", "--output", inspectedPath,
            ])
            .status == 0)
        let head = try BinaryRunner.run(["bundle", "inspect", inspectedPath, "--format", "json"])
        #expect(head.stdout.contains(#""policyVersion":42,"issuedAt":4102444800,"expiresAt":4102448400"#), "\(head.stdout)")

        let invalid = try BinaryRunner.temporaryFile(
            #"{"handlers": [{"name": "x", "type": "cancel", "match": {"hosts": ["*."]}}]}"#)
        let validated = try BinaryRunner.run(["validate", "--config", invalid])
        let refused = try BinaryRunner.run(["bundle", "--config", invalid, "--compiled"])
        #expect(refused.status == 2 && refused.stdout.isEmpty)
        #expect(refused.stderr.contains("is invalid (1 error)"), "\(refused.stderr)")
        let issue = try #require(
            (validated.stdout + validated.stderr).split(separator: "\n").first { $0.contains("/handlers/0/match/hosts/0") })
        #expect(
            refused.stderr.contains(issue.trimmingCharacters(in: .whitespaces)), "the same issue as validate: \(refused.stderr)")
    }
}
