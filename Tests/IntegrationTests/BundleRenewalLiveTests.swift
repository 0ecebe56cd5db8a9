import Foundation
import NavigationPolicy
import NavigationPolicyClient
import TestScratchSupport
import TestSelection
import Testing

/// Finding F6 on the real binaries: a client whose bundle is past half its signed lifetime gets
/// the same policy re-issued with a later expiry, from a real `navpolicyd serve` that answers its
/// revision's `If-None-Match` with 304, before the bundle expires; and a same-revision answer
/// that would shorten the expiry or is not validly signed is refused, the cache left alone.
///
/// Each bundle here is `navpolicyd bundle` of the daemon's own config file (so the same revision)
/// with a chosen `--issued-at`: the one the app holds was issued 400 s into a 600 s lifetime.
@Suite("bundle renewal before expiry, live", .serialized, .tags(.live))
struct BundleRenewalLiveTests {
    static let lifetime = 600
    /// The held bundle's age: past half its lifetime, 200 s before it expires.
    static let heldAge = 400

    struct Setup {
        let key: BundleTrustLiveTests.Key
        let configPath: String
        let revision: String
        /// The bundle the app ships (and holds at launch): issued `heldAge` seconds ago.
        let held: Built
        let cache = URL(fileURLWithPath: TestScratch.path("renewal-cache"))

        func client(_ base: String) throws -> NavigationPolicyClient {
            NavigationPolicyClient(
                configuration: .init(
                    bundleURL: try PolicyClientLiveTests.bundleURL(base), shippedBundle: .init(contentsOf: held.url),
                    cacheDirectory: cache, trustedKeys: [key.keyId: key.verifier]))
        }
    }

    /// A bundle file `navpolicyd bundle` wrote (with `FILE.sig` when signed) and its stamp.
    struct Built {
        let url: URL
        let stamp: BundleStamp
        /// The base64 signature line; nil when built unsigned.
        let signature: String?
    }

    static func setUp() throws -> Setup {
        let key = try BundleTrustLiveTests.Key()
        let config = BundleTrustLiveTests.config(
            key: key.path, bundle: #","lifetimeSeconds":\#(lifetime),"policyVersion":7"#)
        let configPath = try BinaryRunner.temporaryFile(config)
        let held = try build(configPath, issuedAt: now() - heldAge, signingKey: key.path)
        let revision = try BundleDocument(bytes: Array(Data(contentsOf: held.url))).revision
        return Setup(key: key, configPath: configPath, revision: revision, held: held)
    }

    static func now() -> Int { Int(Date().timeIntervalSince1970) }

    /// `navpolicyd bundle` of the config at `configPath`, issued at `issuedAt` for `lifetime`
    /// seconds as version 7, signed by `signingKey` under `keyId` (else its derived id) or unsigned.
    static func build(
        _ configPath: String, issuedAt: Int, signingKey: String?, keyId: String? = nil, lifetime: Int = lifetime
    ) throws -> Built {
        let output = TestScratch.path("renewal", suffix: ".bundle")
        var arguments = [
            "bundle", "--config", configPath, "--issued-at", String(issuedAt), "--lifetime", String(lifetime),
            "--policy-version", "7", "--output", output,
        ]
        if let signingKey { arguments += ["--sign", signingKey] }
        if let keyId { arguments += ["--key-id", keyId] }
        let result = try BinaryRunner.run(arguments)
        #expect(result.status == 0, "\(result.stderr)")
        let url = URL(fileURLWithPath: output)
        let stamp = try #require(try BundleDocument(bytes: Array(Data(contentsOf: url))).stamp)
        let signature = signingKey == nil ? nil : try String(contentsOfFile: output + ".sig", encoding: .utf8)
        return Built(url: url, stamp: stamp, signature: signature?.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The stamp of the bundle in the client's cache file (after its two header lines); nil
    /// when there is no cache file.
    static func cachedStamp(_ setup: Setup) throws -> BundleStamp? {
        let file = setup.cache.appendingPathComponent("navpolicy-bundle.cache")
        guard let data = try? Data(contentsOf: file) else { return nil }
        let lines = data.split(separator: 0x0A, maxSplits: 2, omittingEmptySubsequences: false)
        try #require(lines.count == 3, "not a cache file")
        return try BundleDocument(bytes: Array(lines[2])).stamp
    }

    @Test("past half its lifetime the held bundle is renewed from a daemon that answers its ETag with 304")
    func renewedFromTheDaemon() async throws {
        let setup = try Self.setUp()
        let daemon = try DaemonProcess(configPath: setup.configPath)
        // The premise of the finding: the daemon serves the held revision, and a conditional
        // request for it is a 304 that would never carry a later expiry.
        let conditional = try Curl.request(
            daemon.baseURL + "/v1/policy/bundle", ["-H", "If-None-Match: \"\(setup.revision)\""])
        #expect(conditional.status == 304)

        let client = try setup.client(daemon.baseURL)
        #expect(client.startupIssues.isEmpty, "\(client.startupIssues)")
        #expect(client.source == .shipped)
        #expect(await client.refresh() == .updated(revision: setup.revision, cache: .written))
        #expect(client.revision == setup.revision)
        #expect(client.policyVersion == 7)
        let renewed = try #require(try Self.cachedStamp(setup))
        #expect(renewed.policyVersion == 7)
        #expect(renewed.expiresAt > setup.held.stamp.expiresAt, "\(renewed) is not later than \(setup.held.stamp)")
        #expect(renewed.keyId == setup.key.keyId)
        // Renewed, so no longer due: the next refresh is conditional again, and a 304.
        #expect(await client.refresh() == .notModified(revision: setup.revision))
        // A new launch takes the renewed bundle from the cache (same version: the cache wins a tie).
        let relaunched = try setup.client(daemon.baseURL)
        #expect(relaunched.source == .cache)
        #expect(relaunched.startupIssues.isEmpty, "\(relaunched.startupIssues)")
        #expect(relaunched.decide(NavigationRequest(url: "https://app.example.com/logout")).action == "logout")
    }

    @Test("a same-revision answer with an earlier expiry, a foreign signature or none is refused; the cache is untouched")
    func shorterOrBadlySignedRenewalsAreRefused() async throws {
        let setup = try Self.setUp()
        let other = try BundleTrustLiveTests.Key()
        let now = Self.now()
        let cases: [(name: String, built: Built, kind: BundleRejection.Kind)] = [
            // Validly signed, but issued before the held one: it would bring the expiry closer.
            (
                "earlier", try Self.build(setup.configPath, issuedAt: now - Self.heldAge - 50, signingKey: setup.key.path),
                .olderVersion
            ),
            // A later expiry under the trusted key id, signed by another key.
            (
                "foreign key",
                try Self.build(setup.configPath, issuedAt: now, signingKey: other.path, keyId: setup.key.keyId),
                .badSignature
            ),
            ("unsigned", try Self.build(setup.configPath, issuedAt: now, signingKey: nil), .unsigned),
        ]
        for refused in cases {
            let origin = try BundleOrigin(
                body: refused.built.url.path, signature: refused.built.signature, etag: "\"\(setup.revision)\"",
                extraArguments: ["--not-modified-if-none-match"])
            let client = try setup.client(origin.baseURL)
            #expect(client.source == .shipped, "\(refused.name)")
            let outcome = await client.refresh()
            guard case .rejected(let rejection) = outcome else {
                Issue.record("\(refused.name): expected a rejection, got \(outcome)")
                continue
            }
            #expect(rejection.kind == refused.kind, "\(refused.name): \(rejection)")
            #expect(client.source == .shipped, "\(refused.name)")
            #expect(try Self.cachedStamp(setup) == nil, "\(refused.name): the cache was written")
            let left = (try? FileManager.default.contentsOfDirectory(atPath: setup.cache.path)) ?? []
            #expect(left.isEmpty, "\(refused.name): \(left) left in the cache directory")
        }
        // The control: the same origin with a genuine later issue renews, so each refusal above
        // is the check's doing, not the origin's.
        let later = try Self.build(setup.configPath, issuedAt: now, signingKey: setup.key.path)
        let origin = try BundleOrigin(
            body: later.url.path, signature: later.signature, etag: "\"\(setup.revision)\"",
            extraArguments: ["--not-modified-if-none-match"])
        let client = try setup.client(origin.baseURL)
        #expect(await client.refresh() == .updated(revision: setup.revision, cache: .written))
        #expect(try Self.cachedStamp(setup) == later.stamp)
    }

    /// Finding F1 of the outside attack: the held bundle was signed for longer than the daemon
    /// signs for (an app's shipped bundle, signed for a year). The daemon's re-issue is a later
    /// issue with an earlier expiry; it renews, so refreshes go back to conditional 304s instead
    /// of downloading the whole bundle every time and calling a genuine daemon a replay.
    @Test("a later issue with an earlier expiry renews the held bundle")
    func aLaterIssueWithAnEarlierExpiryRenews() async throws {
        let setup = try Self.setUp()
        let shorter = try Self.build(setup.configPath, issuedAt: Self.now(), signingKey: setup.key.path, lifetime: 100)
        #expect(shorter.stamp.expiresAt < setup.held.stamp.expiresAt)
        let origin = try BundleOrigin(
            body: shorter.url.path, signature: shorter.signature, etag: "\"\(setup.revision)\"",
            extraArguments: ["--not-modified-if-none-match"])
        let client = try setup.client(origin.baseURL)
        #expect(await client.refresh() == .updated(revision: setup.revision, cache: .written))
        #expect(try Self.cachedStamp(setup) == shorter.stamp)
        // Renewed, and not due (issued now for 100 s): the next refresh is conditional, a 304.
        #expect(await client.refresh() == .notModified(revision: setup.revision))
    }

    /// One refresh of `setup`'s client against an origin that answers every request with an
    /// injected 304 naming `etag` and a day's `max-age`; the reason, when the outcome is
    /// `unavailable` (an issue recorded otherwise).
    static func refreshAgainstInjectedNotModified(_ setup: Setup, etag: String) async throws -> (RefreshOutcome, String?) {
        let origin = try BundleOrigin(
            body: setup.held.url.path, signature: setup.held.signature, etag: etag,
            extraArguments: ["--not-modified-after", "0", "--cache-control", "max-age=86400"])
        let outcome = await (try setup.client(origin.baseURL)).refresh()
        guard case .unavailable(let reason) = outcome else {
            Issue.record("expected unavailable, got \(outcome)")
            return (outcome, nil)
        }
        return (outcome, reason)
    }

    /// Finding F2 of the outside attack: a renewal sends no `If-None-Match`, so a 304 to it
    /// answers nothing the client asked; it is stale or injected and must not count as success
    /// nor hand the client its `max-age` (which would put the renewal off by a day).
    @Test("a 304 to a renewal, which sent no If-None-Match, is unavailable, not a success")
    func aNotModifiedToAnUnconditionalRenewalIsUnavailable() async throws {
        let setup = try Self.setUp()
        let (outcome, reason) = try await Self.refreshAgainstInjectedNotModified(setup, etag: "\"\(setup.revision)\"")
        guard let reason else { return }
        #expect(reason.contains("without If-None-Match"), "\(reason)")
        #expect(!outcome.isSuccess)
        #expect(try Self.cachedStamp(setup) == nil)
    }

    /// Finding F2, the other half: a 304 whose `ETag` names another revision than the one the
    /// request's `If-None-Match` held is not an answer about the held bundle.
    @Test("a 304 naming another revision than the held one is unavailable")
    func aNotModifiedForAnotherRevisionIsUnavailable() async throws {
        let aged = try Self.setUp()
        // A fresh bundle held: the refresh is conditional (not a renewal).
        let fresh = try Self.build(aged.configPath, issuedAt: Self.now(), signingKey: aged.key.path)
        let setup = Setup(key: aged.key, configPath: aged.configPath, revision: aged.revision, held: fresh)
        let other = "\"sha256:" + String(repeating: "0", count: 64) + "\""
        let (_, reason) = try await Self.refreshAgainstInjectedNotModified(setup, etag: other)
        guard let reason else { return }
        #expect(reason.contains("not the held revision"), "\(reason)")
    }
}
