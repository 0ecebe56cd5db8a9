import BundleSigning
import Foundation
import Testing

@testable import PolicyService

/// Issue 28, item 5: a daemon that runs past half a bundle's lifetime without a reload issues
/// the bundle again (same policy, revision and version, a fresh issuedAt and signature), so
/// apps never fetch one that is already expired.
@Suite("bundle re-issue")
struct BundleReissueTests {
    @Test func pastHalfItsLifetimeTheBundleIsIssuedAgainWithTheSameVersion() throws {
        let keyPath = try BundleEndpointTests.temporaryDirectory() + "/bundle-key.pem"
        try BundleEndpointTests.testKeyPEM.write(toFile: keyPath, atomically: true, encoding: .utf8)
        let config = Array(BundleEndpointTests.config(keyPath: keyPath).utf8)
        let loaded = Date().addingTimeInterval(-5 * 86_400)  // five days ago; lifetime 7 days
        let initial = try PolicySnapshot.build(from: config, at: loaded).get()
        let store = PolicyStore(configPath: "/nonexistent", initial: initial)

        // Just before half the lifetime: served as built.
        let early = loaded.addingTimeInterval(3 * 86_400)
        #expect(store.snapshotForBundle(now: early)?.bundle.bytes == initial.bundle.bytes)

        let now = Date()
        let served = try #require(store.snapshotForBundle(now: now))
        let stamp = served.bundle.stamp
        #expect(stamp.issuedAt == Int(now.timeIntervalSince1970))
        #expect(stamp.expiresAt == stamp.issuedAt + 604_800)
        #expect(stamp.policyVersion == initial.bundle.stamp.policyVersion)
        #expect(stamp.keyId == initial.bundle.stamp.keyId)
        #expect(served.revision == initial.revision)
        #expect(served.bundle.entityTag == initial.bundle.entityTag)
        let signature = try #require(served.bundle.signature)
        #expect(try Ed25519PrivateKey(pemFile: keyPath).publicKey.isValidSignature(signature, for: served.bundle.bytes))
        #expect(served.bundle.bytes != initial.bundle.bytes)
        // Issued once: the next request gets the same bytes.
        #expect(store.snapshotForBundle(now: now.addingTimeInterval(60))?.bundle.bytes == served.bundle.bytes)
    }
}
