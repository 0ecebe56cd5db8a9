import BundleSigning
import Foundation
import NavigationPolicy
import NavigationPolicyClient
import NavigationPolicyClientSodium
import TestScratchSupport
import Testing

/// Issue 28, items 5–7, on the real binary: the signed freshness members the daemon and
/// `navpolicyd bundle` write, the client refusing a replayed older bundle, an expired one and
/// an unknown key while it keeps its last good bundle, the daemon refusing a reload that would
/// lower the version, and `bundle verify|inspect` and `check|test --bundle` on what an app ships.
@Suite("bundle trust, live", .serialized)
struct BundleTrustLiveTests {
    /// A signing key, its public half as apps configure it, and its derived key id.
    struct Key {
        let path: String
        let publicKeyBase64: String
        let keyId: String
        var verifier: SodiumBundleVerifier { SodiumBundleVerifier(publicKey: publicKey) }
        let publicKey: Ed25519PublicKey

        init() throws {
            path = TestScratch.root + "/bundle-trust-key-\(UUID().uuidString).pem"
            _ = try Curl.standardOutput(of: "/usr/bin/openssl", ["genpkey", "-algorithm", "ed25519", "-out", path])
            let key = try Ed25519PrivateKey(pemFile: path)
            publicKey = key.publicKey
            publicKeyBase64 = key.publicKeyBase64
            keyId = BundleKeyID.derived(from: key.publicKey)
        }
    }

    static func config(
        key: String, handlers: String = #"{"name":"logout","type":"logout","match":{"paths":["/logout"]}}"#, bundle: String = ""
    )
        -> String
    {
        """
        {"defaultDecision":"allow","handlers":[\(handlers)],
         "server":{"watchConfig":false,"bundle":{"signingKeyFile":"\(key)"\(bundle)}},"intake":{"enabled":false}}
        """
    }

    static let helpHandler = #"{"name":"help","type":"cancel","action":"open-help","match":{"paths":["/help"]}}"#

    /// The served body byte for byte, its signature and its tag.
    static func served(_ daemon: DaemonProcess) throws -> (body: Data, signature: String, etag: String) {
        let url = daemon.baseURL + "/v1/policy/bundle"
        let headers = try Curl.request(url).headers
        return (
            try BundleLiveTests.rawBody(url), try #require(headers["navpolicy-bundle-signature"]),
            try #require(headers["etag"])
        )
    }

    static func file(_ data: Data) throws -> String {
        let path = TestScratch.path("bundle-trust", suffix: ".json")
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    static func stamp(_ body: Data) throws -> BundleStamp {
        try #require(try BundleDocument(bytes: Array(body)).stamp)
    }

    static func reload(_ daemon: DaemonProcess, to config: String) throws -> Curl.Response {
        try config.write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        return try Curl.request(daemon.baseURL + "/v1/policy/reload", ["-X", "POST"])
    }

    static func client(_ base: String, key: Key, cache: URL) throws -> NavigationPolicyClient {
        NavigationPolicyClient(
            configuration: .init(
                bundleURL: try PolicyClientLiveTests.bundleURL(base), cacheDirectory: cache,
                trustedKeys: [key.keyId: key.verifier]))
    }

    @Test("the signed bytes carry policyVersion, issuedAt, expiresAt and keyId; versions rise across reloads")
    func stampedAndMonotonic() throws {
        let key = try Key()
        let daemon = try DaemonProcess(config: Self.config(key: key.path, bundle: #","lifetimeSeconds":3600"#))
        let first = try Self.served(daemon)
        let stamp = try Self.stamp(first.body)
        let now = Int(Date().timeIntervalSince1970)
        #expect(abs(stamp.issuedAt - now) < 120)
        #expect(stamp.expiresAt == stamp.issuedAt + 3600)
        #expect(stamp.keyId == key.keyId)
        #expect(stamp.policyVersion >= stamp.issuedAt)
        // Two reloads within one second still give rising versions.
        var previous = stamp.policyVersion
        for handlers in [Self.helpHandler, #"{"name":"x","type":"cancel","match":{"paths":["/x"]}}"#] {
            let reload = try Self.reload(daemon, to: Self.config(key: key.path, handlers: handlers))
            #expect(reload.status == 200, "\(reload.body)")
            let version = try Self.stamp(try Self.served(daemon).body).policyVersion
            #expect(version > previous)
            previous = version
        }
    }

    @Test("a replayed older signed bundle is refused and the client keeps its last good one")
    func replayIsRefused() async throws {
        let key = try Key()
        let daemon = try DaemonProcess(config: Self.config(key: key.path))
        let old = try Self.served(daemon)
        let reload = try Self.reload(daemon, to: Self.config(key: key.path, handlers: Self.helpHandler))
        #expect(reload.status == 200, "\(reload.body)")
        let current = try Self.served(daemon)
        let cache = URL(fileURLWithPath: TestScratch.path("bundle-trust-cache"))
        defer { try? FileManager.default.removeItem(at: cache) }

        let client = try Self.client(daemon.baseURL, key: key, cache: cache)
        let revision = String(current.etag.dropFirst().dropLast())
        #expect(await client.refresh() == .updated(revision: revision, cache: .written))

        // Someone on the path (or a stale CDN) answers with the genuine, validly signed, older bundle.
        let origin = try BundleOrigin(body: try Self.file(old.body), signature: old.signature, etag: old.etag)
        let replayed = try Self.client(origin.baseURL, key: key, cache: cache)
        #expect(replayed.source == .cache)
        #expect(replayed.revision == revision)
        let outcome = await replayed.refresh()
        guard case .rejected(let rejection) = outcome else {
            Issue.record("a replayed older bundle must be rejected, got \(outcome)")
            return
        }
        #expect(rejection.kind == .olderVersion, "\(rejection)")
        #expect(!outcome.isSuccess)
        #expect(replayed.revision == revision)
        #expect(replayed.policyVersion == (try Self.stamp(current.body).policyVersion))
        #expect(
            NavigationAnswer(replayed.decide(NavigationRequest(url: "https://app.example.com/help")))
                == .cancel(.custom(action: "open-help", location: nil)))
        // The disk copy is still the newer bundle: a restart does not fall back either.
        let restarted = try Self.client(origin.baseURL, key: key, cache: cache)
        #expect(restarted.revision == revision)
    }

    @Test("an expired signed bundle is refused and the client keeps its last good one")
    func expiredIsRefused() async throws {
        let key = try Key()
        let daemon = try DaemonProcess(config: Self.config(key: key.path))
        let cache = URL(fileURLWithPath: TestScratch.path("bundle-trust-cache"))
        defer { try? FileManager.default.removeItem(at: cache) }
        let client = try Self.client(daemon.baseURL, key: key, cache: cache)
        guard case .updated(let revision, .written) = await client.refresh() else {
            Issue.record("the first refresh must update")
            return
        }

        // Signed with the trusted key, a higher version, but issued two days ago for one hour.
        let path = TestScratch.path("bundle-trust-expired", suffix: ".json")
        let issued = Int(Date().timeIntervalSince1970) - 172_800
        let built = try BinaryRunner.run([
            "bundle", "--config", try BinaryRunner.temporaryFile(Self.config(key: key.path, handlers: Self.helpHandler)),
            "--sign", key.path, "--issued-at", String(issued), "--lifetime", "3600", "--policy-version",
            "9000000000000", "--allow-expired", "--output", path,
        ])
        #expect(built.status == 0, "\(built.stderr)")
        let signature = try String(contentsOfFile: path + ".sig", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let body = try Data(contentsOf: URL(fileURLWithPath: path))
        let etag = "\"\(try BundleDocument(bytes: Array(body)).revision)\""
        let origin = try BundleOrigin(body: path, signature: signature, etag: etag)
        let stale = try Self.client(origin.baseURL, key: key, cache: cache)
        let outcome = await stale.refresh()
        guard case .rejected(let rejection) = outcome else {
            Issue.record("an expired bundle must be rejected, got \(outcome)")
            return
        }
        #expect(rejection.kind == .expired, "\(rejection)")
        #expect(stale.revision == revision)
        #expect(stale.decide(NavigationRequest(url: "https://app.example.com/help")).verdict == .allow)
    }

    @Test("the key id picks the key: an unknown id is refused, a rotation lists both ids")
    func keyIdSelectsTheKey() async throws {
        let old = try Key()
        let new = try Key()
        let daemon = try DaemonProcess(config: Self.config(key: new.path, bundle: #","keyId":"app-2026""#))
        #expect(try Self.stamp(try Self.served(daemon).body).keyId == "app-2026")
        let url = try PolicyClientLiveTests.bundleURL(daemon.baseURL)
        let before = NavigationPolicyClient(configuration: .init(bundleURL: url, trustedKeys: ["app-2025": old.verifier]))
        guard case .rejected(let rejection) = await before.refresh() else {
            Issue.record("a bundle signed with an untrusted key id must be rejected")
            return
        }
        #expect(rejection.kind == .unknownKey)
        #expect(rejection.reason.contains("app-2026"))
        // Even the right public key under another id: keys are not tried in turn.
        let renamed = NavigationPolicyClient(configuration: .init(bundleURL: url, trustedKeys: ["app-2025": new.verifier]))
        guard case .rejected(let renamedRejection) = await renamed.refresh() else {
            Issue.record("a key id the app does not list must be rejected, whatever key signed")
            return
        }
        #expect(renamedRejection.kind == .unknownKey)
        // The right public key under the wrong id is still refused: the id names the key.
        let misnamed = NavigationPolicyClient(configuration: .init(bundleURL: url, trustedKeys: ["app-2026": old.verifier]))
        guard case .rejected(let bad) = await misnamed.refresh() else {
            Issue.record("a signature by another key must be rejected")
            return
        }
        #expect(bad.kind == .badSignature)
        let rotating = NavigationPolicyClient(
            configuration: .init(bundleURL: url, trustedKeys: ["app-2025": old.verifier, "app-2026": new.verifier]))
        #expect(await rotating.refresh().isSuccess)
    }

    @Test("a reload that would lower the configured policyVersion is refused; the old bundle keeps serving")
    func configuredVersionMustRise() throws {
        let key = try Key()
        let daemon = try DaemonProcess(config: Self.config(key: key.path, bundle: #","policyVersion":5"#))
        let before = try Self.served(daemon)
        #expect(try Self.stamp(before.body).policyVersion == 5)
        let lower = try Self.reload(
            daemon, to: Self.config(key: key.path, handlers: Self.helpHandler, bundle: #","policyVersion":5"#))
        #expect(lower.status == 422, "\(lower.body)")
        #expect(lower.body.contains("/server/bundle/policyVersion"), "\(lower.body)")
        #expect(try Self.served(daemon).etag == before.etag)
        let higher = try Self.reload(
            daemon, to: Self.config(key: key.path, handlers: Self.helpHandler, bundle: #","policyVersion":6"#))
        #expect(higher.status == 200, "\(higher.body)")
        #expect(try Self.stamp(try Self.served(daemon).body).policyVersion == 6)
    }

    @Test("bundle --issued-at/--policy-version reproduce the served bytes; bundle verify and inspect")
    func verifyAndInspect() throws {
        let key = try Key()
        let daemon = try DaemonProcess(config: Self.config(key: key.path))
        let served = try Self.served(daemon)
        let stamp = try Self.stamp(served.body)
        let path = TestScratch.path("bundle-trust-offline", suffix: ".json")
        let built = try BinaryRunner.run([
            "bundle", "--config", daemon.configPath, "--sign", key.path, "--issued-at", String(stamp.issuedAt),
            "--policy-version", String(stamp.policyVersion), "--output", path,
        ])
        #expect(built.status == 0, "\(built.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == served.body)

        let verified = try BinaryRunner.run(["bundle", "verify", path, "--bundle-key", "\(key.keyId):\(key.publicKeyBase64)"])
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdout.contains("OK") && verified.stdout.contains(key.keyId))

        let other = try Key()
        let wrongKey = try BinaryRunner.run(["bundle", "verify", path, "--bundle-key", "\(key.keyId):\(other.publicKeyBase64)"])
        #expect(wrongKey.status == 2)
        #expect(wrongKey.stderr.contains("bad-signature"), "\(wrongKey.stderr)")
        let unknown = try BinaryRunner.run(["bundle", "verify", path, "--bundle-key", "retired:\(key.publicKeyBase64)"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("unknown-key") && unknown.stderr.contains(key.keyId), "\(unknown.stderr)")
        // A signed bundle with no key given: not "OK" (a CI step that forgot the key would pass
        // any tampered copy; outside attack).
        let keyless = try BinaryRunner.run(["bundle", "verify", path])
        #expect(keyless.status == 2 && !keyless.stdout.contains("OK"), "\(keyless.stdout)")
        #expect(keyless.stderr.contains("--bundle-key") && keyless.stderr.contains(key.keyId), "\(keyless.stderr)")
        let notABundle = try BinaryRunner.run(["bundle", "verify", daemon.configPath])
        #expect(notABundle.status == 2)
        #expect(notABundle.stderr.contains("malformed"), "\(notABundle.stderr)")

        let inspected = try BinaryRunner.run(["bundle", "inspect", path, "--format", "json"])
        #expect(inspected.status == 0, "\(inspected.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(inspected.stdout.utf8)) as? [String: Any])
        #expect(json["policyVersion"] as? Int == stamp.policyVersion)
        #expect(json["expiresAt"] as? Int == stamp.expiresAt)
        #expect(json["keyId"] as? String == key.keyId)
        #expect(json["signed"] as? Bool == true)
        #expect(json["expired"] as? Bool == false)
        let text = try BinaryRunner.run(["bundle", "inspect", path])
        #expect(text.status == 0 && text.stdout.contains("policyVersion: \(stamp.policyVersion)"), "\(text.stdout)")
        let usage = try BinaryRunner.run(["bundle", "inspect"])
        #expect(usage.status == 2)
    }

    @Test("check and test decide with the bundle an app ships, and refuse one the app would refuse")
    func checkAndTestWithABundle() throws {
        let key = try Key()
        let config = try BinaryRunner.temporaryFile(Self.config(key: key.path, handlers: Self.helpHandler))
        let path = TestScratch.path("bundle-trust-shipped", suffix: ".json")
        #expect(try BinaryRunner.run(["bundle", "--config", config, "--sign", key.path, "--output", path]).status == 0)
        let trusted = "\(key.keyId):\(key.publicKeyBase64)"

        let check = try BinaryRunner.run(["check", "--bundle", path, "--bundle-key", trusted, "https://app.example.com/help"])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stdout.contains(#""action":"open-help""#), "\(check.stdout)")
        #expect(check.stderr.isEmpty, "\(check.stderr)")

        let cases = try BinaryRunner.temporaryFile(
            #"[{"url":"https://app.example.com/help","expect":{"decision":"cancel","handler":"help","action":"open-help"}},"#
                + #"{"url":"https://app.example.com/","expect":{"decision":"allow"}}]"#)
        let test = try BinaryRunner.run(["test", "--bundle", path, "--bundle-key", trusted, cases])
        #expect(test.status == 0, "\(test.stdout)\(test.stderr)")
        #expect(test.stdout.contains("2 passed, 0 failed"), "\(test.stdout)")

        // Without a key the signature is not checked, and the command says so.
        let unchecked = try BinaryRunner.run(["check", "--bundle", path, "https://app.example.com/"])
        #expect(unchecked.status == 0)
        #expect(unchecked.stderr.contains("signature not checked"), "\(unchecked.stderr)")

        // A tampered copy is what an app would refuse: so do check and test.
        let tampered = TestScratch.path("bundle-trust-tampered", suffix: ".json")
        let original = try String(contentsOfFile: path, encoding: .utf8)
        try original.replacingOccurrences(of: "/help", with: "/helq").write(toFile: tampered, atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(atPath: path + ".sig", toPath: tampered + ".sig")
        let refused = try BinaryRunner.run(["test", "--bundle", tampered, "--bundle-key", trusted, cases])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("bad-signature"), "\(refused.stderr)")

        // An expired bundle too.
        let expired = TestScratch.path("bundle-trust-old", suffix: ".json")
        #expect(
            try BinaryRunner.run([
                "bundle", "--config", config, "--sign", key.path, "--issued-at", "1000", "--lifetime", "60", "--allow-expired",
                "--output", expired,
            ]).status == 0)
        let old = try BinaryRunner.run(["check", "--bundle", expired, "--bundle-key", trusted, "https://app.example.com/"])
        #expect(old.status == 2)
        #expect(old.stderr.contains("expired"), "\(old.stderr)")

        let both = try BinaryRunner.run(["check", "--bundle", path, "--config", config, "https://app.example.com/"])
        #expect(both.status == 2)
        let keyAlone = try BinaryRunner.run(["check", "--bundle-key", trusted, "https://app.example.com/"])
        #expect(keyAlone.status == 2)
    }
}
