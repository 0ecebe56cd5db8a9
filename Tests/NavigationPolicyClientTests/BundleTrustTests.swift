import Foundation
import NavigationPolicy
import Testing

@testable import NavigationPolicyClient

/// Issue 28, items 5 and 7: key ids, expiry, replay and the unversioned opt-in, the startup
/// choice between the disk copy and the shipped bundle, strict start-up and explicit outcomes.
@Suite("bundle trust: key ids, expiry, versions")
struct BundleTrustTests {
    static let oldKey = ChecksumVerifier(key: 1)
    static let newKey = ChecksumVerifier(key: 2)
    static let rotating = BundleTrust(trustedKeys: ["old": oldKey, "new": newKey])

    @Test("an untrusted key id is repeated bounded: it is read before any check")
    func untrustedKeyIdShownBounded() {
        let huge = String(repeating: "K", count: 200_000)
        for keyId in [huge, "a\u{1B}[31mb", String(repeating: "x", count: 65)] {
            do {
                _ = try BundleKeyChoice.choose(
                    trustedKeyIDs: ["old", "new"], hasSingleKey: false, hasSignature: true, isVersionOne: false,
                    keyId: keyId)
                Issue.record("\(keyId.prefix(8)) was trusted")
            } catch {
                #expect(error.reason.utf8.count < 160, "\(error.reason.prefix(200))")
                #expect(!error.reason.contains("\u{1B}"))
            }
        }
        #expect(BundleKeyChoice.shown("key-2026.a") == "\"key-2026.a\"")
    }

    @Test func theKeyIdPicksTheOneKeyThatMustVerify() throws {
        let bytes = bundleBytes(keyId: "new")
        _ = try VerifiedBundle(bytes: bytes, signature: Self.newKey.sign(bytes), trust: Self.rotating)
        // Signed by the other trusted key: not tried, refused.
        #expect(rejection(bytes, signature: Self.oldKey.sign(bytes), trust: Self.rotating) == .badSignature)
        let unknown = bundleBytes(keyId: "retired")
        #expect(rejection(unknown, signature: Self.oldKey.sign(unknown), trust: Self.rotating) == .unknownKey)
        let unnamed = bundleBytes()
        #expect(rejection(unnamed, signature: Self.oldKey.sign(unnamed), trust: Self.rotating) == .unknownKey)
        #expect(rejection(bytes, signature: nil, trust: Self.rotating) == .unsigned)
    }

    @Test("a key id is matched byte for byte, not by canonical equivalence (outside attack round 12, F6)")
    func keyIdsMatchByteForByte() {
        // KELVIN SIGN is canonically equivalent to K: String's == and a [String: …] lookup take
        // one for the other; the WebAssembly build's keys (JavaScript's) do not.
        let trust = BundleTrust(trustedKeys: ["K1": Self.oldKey])
        let kelvin = bundleBytes(keyId: "\u{212A}1")
        #expect(rejection(kelvin, signature: Self.oldKey.sign(kelvin), trust: trust) == .unknownKey)
        let exact = bundleBytes(keyId: "K1")
        #expect(rejection(exact, signature: Self.oldKey.sign(exact), trust: trust) == nil)
    }

    @Test func anExpiredBundleIsRefusedAndOneStillValidIsNot() {
        let bytes = bundleBytes(expiresAt: 2_000)
        #expect(rejection(bytes, trust: BundleTrust(), now: Date(timeIntervalSince1970: 1_999)) == nil)
        #expect(rejection(bytes, trust: BundleTrust(), now: Date(timeIntervalSince1970: 2_000)) == .expired)
        #expect(rejection(bytes, trust: BundleTrust(), now: Date(timeIntervalSince1970: 9_999)) == .expired)
        // The refusal says when, in the RFC 3339 times `bundle verify`'s OK line prints.
        #expect(throws: BundleRejection(.expired, "expired at 1970-01-01T00:33:20Z; it is 1970-01-01T02:46:39Z now")) {
            try VerifiedBundle(bytes: bytes, signature: nil, trust: BundleTrust(), now: Date(timeIntervalSince1970: 9_999))
        }
    }

    @Test func stampsOutsideWhatADaemonIssuesAreRefused() {
        // Past 2^53 - 1 a JSON number is not exact: 2^53 + 1 would read as 2^53 (outside attack).
        #expect(rejection(bundleBytes(policyVersion: 9_007_199_254_740_992), trust: BundleTrust()) == .malformed)
        #expect(rejection(bundleBytes(policyVersion: 9_007_199_254_740_991), trust: BundleTrust()) == nil)
        // More than a year between issuedAt and expiresAt: no daemon or `navpolicyd bundle` signs that.
        let century = Array(
            #"{"format":"navpolicy-bundle","version":2,"revision":"sha256:\#(String(repeating: "a", count: 64))","policyVersion":1,"issuedAt":1000,"expiresAt":4102444800,"policy":\#(defaultPolicyJSON)}"#
                .utf8)
        #expect(rejection(century, trust: BundleTrust()) == .malformed)
    }

    @Test func versionOneBundlesAreRefusedUnlessTheAppOptsIn() throws {
        let legacy = legacyBundleBytes()
        #expect(rejection(legacy, trust: BundleTrust()) == .unversioned)
        #expect(rejection(legacy, signature: Self.oldKey.sign(legacy), trust: Self.rotating) == .unversioned)
        var optIn = Self.rotating
        optIn.acceptsUnversionedBundles = true
        let accepted = try VerifiedBundle(bytes: legacy, signature: Self.oldKey.sign(legacy), trust: optIn)
        #expect(accepted.stamp == nil)
        #expect(rejection(legacy, signature: ChecksumVerifier(key: 3).sign(legacy), trust: optIn) == .badSignature)
    }

    @Test func onlyAHigherPolicyVersionReplacesTheOneDeciding() throws {
        let older = try VerifiedBundle(bytes: bundleBytes(revisionDigit: "b", policyVersion: 4), signature: nil, trust: .init())
        let same = try VerifiedBundle(bytes: bundleBytes(revisionDigit: "c", policyVersion: 5), signature: nil, trust: .init())
        let newer = try VerifiedBundle(bytes: bundleBytes(revisionDigit: "d", policyVersion: 6), signature: nil, trust: .init())
        #expect(BundleUpdater.replayRejection(older, current: 5)?.kind == .olderVersion)
        #expect(BundleUpdater.replayRejection(same, current: 5)?.kind == .olderVersion)
        #expect(BundleUpdater.replayRejection(newer, current: 5) == nil)
        #expect(BundleUpdater.replayRejection(older, current: nil) == nil)
        let legacy = try VerifiedBundle(
            bytes: legacyBundleBytes(), signature: nil, trust: BundleTrust(acceptsUnversionedBundles: true))
        #expect(BundleUpdater.replayRejection(legacy, current: 5)?.kind == .olderVersion)
    }

    @Test func atStartTheHigherVersionOfDiskCopyAndShippedBundleDecides() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try BundleCache(directory: directory).store(
            bytes: bundleBytes(policy: #"{"defaultDecision":"cancel","handlers":[]}"#, revisionDigit: "b", policyVersion: 3),
            signature: nil)
        // An app update ships version 7: it wins over the older disk copy.
        let updated = NavigationPolicyClient(
            configuration: .init(shippedBundle: .init(bytes: bundleBytes(policyVersion: 7)), cacheDirectory: directory))
        #expect(updated.source == .shipped)
        #expect(updated.policyVersion == 7)
        // An older shipped bundle loses to the disk copy.
        let stale = NavigationPolicyClient(
            configuration: .init(shippedBundle: .init(bytes: bundleBytes(policyVersion: 2)), cacheDirectory: directory))
        #expect(stale.source == .cache)
        #expect(stale.policyVersion == 3)
    }

    @Test func strictStartThrowsTheShippedBundlesRejection() throws {
        let wrongFormat = NavigationPolicyClient.Configuration(shippedBundle: .init(bytes: Array("{}".utf8)))
        #expect(throws: BundleRejection.self) { try NavigationPolicyClient(strict: wrongFormat) }
        #expect(Self.strictRejection(legacyBundleBytes()) == .unversioned)
        #expect(Self.strictRejection(bundleBytes(expiresAt: 2_000)) == .expired)
        #expect(Self.strictRejection(bundleBytes()) == nil)
        // The lenient initializer starts without it and says why.
        let lenient = NavigationPolicyClient(configuration: wrongFormat)
        #expect(lenient.revision == nil)
        #expect(lenient.startupIssues.map(\.kind) == [.malformed])
        let good = try NavigationPolicyClient(strict: .init(shippedBundle: .init(bytes: bundleBytes())))
        #expect(good.source == .shipped)
    }

    /// The kind `init(strict:)` throws for a shipped bundle of these bytes; nil when it starts.
    static func strictRejection(_ bytes: [UInt8]) -> BundleRejection.Kind? {
        do throws(BundleRejection) {
            _ = try NavigationPolicyClient(strict: .init(shippedBundle: .init(bytes: bytes)))
            return nil
        } catch {
            return error.kind
        }
    }

    @Test func outcomesSayWhetherTheyAreASuccess() {
        #expect(RefreshOutcome.updated(revision: "r", cache: .written).isSuccess)
        #expect(RefreshOutcome.updated(revision: "r", cache: .notConfigured).isSuccess)
        #expect(RefreshOutcome.notModified(revision: "r").isSuccess)
        #expect(RefreshOutcome.unchanged(revision: "r").isSuccess)
        #expect(!RefreshOutcome.rejected(BundleRejection(.expired, "")).isSuccess)
        #expect(!RefreshOutcome.unavailable(reason: "down").isSuccess)
    }

    @Test func maxAgeIsASynchronousReadAndNilBeforeAnAnswer() {
        let client = NavigationPolicyClient(configuration: .init(shippedBundle: .init(bytes: bundleBytes())))
        let maxAge: Duration? = client.maxAge
        #expect(maxAge == nil)
    }
}
