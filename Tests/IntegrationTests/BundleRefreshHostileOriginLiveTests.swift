import BundleSigning
import Foundation
import NavigationPolicy
import NavigationPolicyClient
import TestScratchSupport
import TestSelection
import Testing

/// Round 9 of the outside attack on the app client's refresh and cache and the daemon's puller,
/// each shape as the attacker's origin sent it (scripts/bundle-origin.py): a redirect to another
/// origin (F4), a body of unannounced length (F3), a renewal answered with the same issue and a
/// day's max-age (F6), an app and its extension sharing a cache (F5), a 16 MB member name (F2),
/// and a `FILE.sig` that is not a file (F8).
@Suite("bundle refresh against a hostile origin, live", .serialized, .tags(.live))
struct BundleRefreshHostileOriginLiveTests {
    static let policy =
        #"{"defaultDecision":"allow","handlers":[{"name":"logout","type":"logout","match":{"paths":["/logout"]}}]}"#

    /// An unsigned version-2 bundle file: `policyVersion`, a revision of `digit`s, issued `age`
    /// seconds ago for `lifetime` seconds, with `extraMembers` (`,"name":value…`) at its end.
    static func bundle(
        policyVersion: Int, digit: Character, age: Int = 0, lifetime: Int = 3600, extraMembers: String = ""
    ) throws -> String {
        let issuedAt = Int(Date().timeIntervalSince1970) - age
        let revision = "sha256:" + String(repeating: digit, count: 64)
        let text =
            #"{"format":"navpolicy-bundle","version":2,"revision":"\#(revision)","policyVersion":\#(policyVersion),"#
            + #""issuedAt":\#(issuedAt),"expiresAt":\#(issuedAt + lifetime),"policy":\#(policy)\#(extraMembers)}"#
        let path = TestScratch.path("hostile-origin", suffix: ".json")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func client(shipped: String, bundleURL: String, cache: URL, token: String? = nil) -> NavigationPolicyClient {
        NavigationPolicyClient(
            configuration: .init(
                bundleURL: URL(string: bundleURL), shippedBundle: .init(contentsOf: URL(fileURLWithPath: shipped)),
                cacheDirectory: cache, authorizationToken: token))
    }

    /// The `policyVersion` of the bundle in the cache file of `cache` (after its two header lines).
    static func cachedVersion(_ cache: URL) throws -> Int? {
        let data = try Data(contentsOf: cache.appendingPathComponent("navpolicy-bundle.cache"))
        let lines = data.split(separator: 0x0A, maxSplits: 2, omittingEmptySubsequences: false)
        try #require(lines.count == 3, "not a cache file")
        return try BundleDocument(bytes: Array(lines[2])).stamp?.policyVersion
    }

    /// F4: the bearer token (the daemon's admin token with `requireTokenForDecide`) went to
    /// whatever origin a 302 named. No redirect is followed; the 3xx is reported.
    @Test("a redirect is not followed: the token reaches the configured origin only, the refresh is unavailable")
    func aRedirectIsNotFollowed() async throws {
        let shipped = try Self.bundle(policyVersion: 1, digit: "a")
        let elsewhere = TestScratch.path("redirect-target-authorization")
        let target = try BundleOrigin(
            body: try Self.bundle(policyVersion: 2, digit: "b"), signature: nil, etag: nil,
            extraArguments: ["--record-authorization", elsewhere])
        let redirecting = try BundleOrigin(
            body: shipped, signature: nil, etag: nil, extraArguments: ["--redirect-to", target.baseURL + "/bundle"])
        let client = Self.client(
            shipped: shipped, bundleURL: redirecting.baseURL + "/bundle", cache: URL(fileURLWithPath: TestScratch.path("cache")),
            token: "admin-secret")
        let outcome = await client.refresh()
        guard case .unavailable(let reason) = outcome else {
            Issue.record("expected unavailable, got \(outcome)")
            return
        }
        #expect(reason.contains("HTTP 302 redirect") && reason.contains("not followed"), "\(reason)")
        #expect(client.policyVersion == 1)
        #expect(!FileManager.default.fileExists(atPath: elsewhere), "the other origin was asked")
    }

    /// F3: a body of unannounced length (or one the session inflates) was queued by URLSession
    /// without backpressure before the limit could cut it; it is refused at the response head.
    @Test("an answer without Content-Length is refused at its head, even a valid newer bundle")
    func anAnswerWithoutLengthIsRefused() async throws {
        let shipped = try Self.bundle(policyVersion: 1, digit: "a")
        let cache = URL(fileURLWithPath: TestScratch.path("cache"))
        let origin = try BundleOrigin(
            body: try Self.bundle(policyVersion: 2, digit: "b"), signature: nil, etag: nil,
            extraArguments: ["--no-content-length"])
        let client = Self.client(shipped: shipped, bundleURL: origin.baseURL + "/bundle", cache: cache)
        let outcome = await client.refresh()
        guard case .unavailable(let reason) = outcome else {
            Issue.record("expected unavailable, got \(outcome)")
            return
        }
        #expect(reason.contains("no Content-Length"), "\(reason)")
        #expect(client.policyVersion == 1)
        let left = (try? FileManager.default.contentsOfDirectory(atPath: cache.path)) ?? []
        #expect(left.isEmpty, "\(left) left in the cache directory")
    }

    /// F6: a renewal answered with the same issue did not renew; a day's max-age on it put the
    /// next renewal off by a day, while the held bundle nears its expiry.
    @Test("a renewal answered with the same issue is unchanged and keeps no max-age")
    func aRenewalThatDidNotRenewKeepsNoMaxAge() async throws {
        // Past half its lifetime: the refresh is a renewal (no If-None-Match).
        let held = try Self.bundle(policyVersion: 7, digit: "a", age: 400, lifetime: 600)
        let revision = "sha256:" + String(repeating: "a", count: 64)
        let origin = try BundleOrigin(
            body: held, signature: nil, etag: "\"\(revision)\"", extraArguments: ["--cache-control", "max-age=86400"])
        let client = Self.client(
            shipped: held, bundleURL: origin.baseURL + "/bundle", cache: URL(fileURLWithPath: TestScratch.path("cache")))
        let outcome = await client.refresh()
        #expect(outcome == .unchanged(revision: revision))
        #expect(client.maxAge == nil, "a renewal that did not renew kept max-age \(String(describing: client.maxAge))")

        // Not a renewal (a young bundle held): the same answer's max-age is kept, as before.
        let young = try Self.bundle(policyVersion: 7, digit: "a", age: 0, lifetime: 600)
        let replaying = try BundleOrigin(
            body: young, signature: nil, etag: "\"\(revision)\"", extraArguments: ["--cache-control", "max-age=86400"])
        let conditional = Self.client(
            shipped: young, bundleURL: replaying.baseURL + "/bundle", cache: URL(fileURLWithPath: TestScratch.path("cache")))
        #expect(await conditional.refresh() == .unchanged(revision: revision))
        #expect(conditional.maxAge == .seconds(86_400))
    }

    /// F5: an app and its extension share the cache directory; the one still on an older bundle
    /// fetched a newer-than-its-own but older-than-installed one and renamed it over the cache,
    /// so the device went back a version at the next launch.
    @Test("a refresh never replaces a newer bundle another process installed in the shared cache")
    func aSharedCacheIsNeverRolledBack() async throws {
        let shipped = try Self.bundle(policyVersion: 100, digit: "a")
        let cache = URL(fileURLWithPath: TestScratch.path("shared-cache"))
        let newest = try BundleOrigin(body: try Self.bundle(policyVersion: 300, digit: "c"), signature: nil, etag: nil)
        let older = try BundleOrigin(body: try Self.bundle(policyVersion: 200, digit: "b"), signature: nil, etag: nil)
        // Both start from the shipped bundle, before either refreshed.
        let app = Self.client(shipped: shipped, bundleURL: newest.baseURL + "/bundle", cache: cache)
        let appExtension = Self.client(shipped: shipped, bundleURL: older.baseURL + "/bundle", cache: cache)
        #expect(await app.refresh().isSuccess)
        #expect(try Self.cachedVersion(cache) == 300)

        let outcome = await appExtension.refresh()
        guard case .rejected(let rejection) = outcome else {
            Issue.record("expected rejected, got \(outcome)")
            return
        }
        #expect(rejection.kind == .olderVersion, "\(rejection)")
        #expect(rejection.reason.contains("another process"), "\(rejection)")
        #expect(try Self.cachedVersion(cache) == 300)
        // The next launch starts from the newest bundle.
        let relaunched = Self.client(shipped: shipped, bundleURL: older.baseURL + "/bundle", cache: cache)
        #expect(relaunched.policyVersion == 300)
        #expect(relaunched.source == .cache)
        let staged = try FileManager.default.contentsOfDirectory(atPath: cache.path).filter { $0.hasSuffix(".partial") }
        #expect(staged.isEmpty, "\(staged) left behind")
    }

    /// A bundle of `key`'s, validly signed, whose JSON repeats a member with a 0.8 MB name full
    /// of ESC and BEL bytes: refused as malformed after its signature verified.
    static func duplicateMemberBundle(key: BundleTrustLiveTests.Key) throws -> (path: String, signature: String) {
        // JSON escapes: the parser unescapes them into the name, raw ESC and BEL.
        let name = String(repeating: #"\u001b[2J\u0007x"#, count: 1 << 17)
        let path = try Self.bundle(
            policyVersion: 5, digit: "d", extraMembers: #","keyId":"\#(key.keyId)","\#(name)":1,"\#(name)":2"#)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let signature = Data(try Ed25519PrivateKey(pemFile: key.path).sign(bytes)).base64EncodedString()
        return (path, signature)
    }

    /// F2, in the app: the rejection's reason quoted the whole 16 MB member name, control bytes and all.
    @Test("a duplicate member with a huge name gives a short rejection reason without control bytes")
    func aHugeMemberNameGivesABoundedReason() async throws {
        let key = try BundleTrustLiveTests.Key()
        let hostile = try Self.duplicateMemberBundle(key: key)
        let origin = try BundleOrigin(body: hostile.path, signature: hostile.signature, etag: nil)
        let client = NavigationPolicyClient(
            configuration: .init(
                bundleURL: URL(string: origin.baseURL + "/bundle"),
                cacheDirectory: URL(fileURLWithPath: TestScratch.path("cache")),
                trustedKeys: [key.keyId: key.verifier]))
        let outcome = await client.refresh()
        guard case .rejected(let rejection) = outcome else {
            Issue.record("expected rejected, got \(outcome)")
            return
        }
        #expect(rejection.reason.utf8.count <= 1200, "\(rejection.reason.utf8.count) bytes")
        #expect(!rejection.reason.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F })
    }

    /// F2, in the daemon's puller: the same reason filled a log line per poll, `/v1/status`, the
    /// status page and the 422 of `POST /v1/policy/reload`.
    @Test("the puller reports a huge member name in a short status field and a short 422")
    func thePullerReportsABoundedReason() throws {
        let key = try BundleTrustLiveTests.Key()
        let hostile = try Self.duplicateMemberBundle(key: key)
        let origin = try BundleOrigin(body: hostile.path, signature: hostile.signature, etag: nil)
        let puller = try DaemonProcess(
            config: PolicySourceLiveTests.pullerConfig(
                url: origin.baseURL + "/bundle", key: key, cacheFile: TestScratch.path("puller-cache", suffix: ".bundle")))
        defer { PolicySourceLiveTests.stop(puller) }
        #expect(try PolicySourceLiveTests.eventually { try PolicySourceLiveTests.lastFailureReason(puller) != nil })
        let status = try Curl.request(puller.baseURL + "/v1/status")
        #expect(status.body.utf8.count < 64 << 10, "/v1/status is \(status.body.utf8.count) bytes")
        let failure = try #require(try PolicySourceLiveTests.status(puller)["lastFailure"] as? [String: Any])
        let detail = try #require(failure["detail"] as? String)
        #expect(detail.utf8.count <= 1200, "\(detail.utf8.count) bytes")
        #expect(!detail.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F })
        let reload = try Curl.request(puller.baseURL + "/v1/policy/reload", ["-X", "POST"])
        #expect(reload.body.utf8.count < 16 << 10, "the reload answer is \(reload.body.utf8.count) bytes")
    }

    /// F8: a `FILE.sig` that is there but cannot be read was taken for no signature at all.
    @Test("bundle verify says FILE.sig cannot be read when it is a directory or a FIFO, exit 2")
    func anUnreadableSignatureFileIsNotUnsigned() throws {
        for kind in ["directory", "fifo"] {
            let path = try Self.bundle(policyVersion: 1, digit: "a")
            let signature = path + ".sig"
            if kind == "directory" {
                try FileManager.default.createDirectory(atPath: signature, withIntermediateDirectories: false)
            } else {
                #expect(mkfifo(signature, 0o600) == 0)
            }
            let result = try BinaryRunner.run(["bundle", "verify", path])
            #expect(result.status == 2, "\(kind): \(result.stdout) \(result.stderr)")
            #expect(result.stderr.contains("\(signature): cannot be read"), "\(kind): \(result.stderr)")
        }
    }
}
