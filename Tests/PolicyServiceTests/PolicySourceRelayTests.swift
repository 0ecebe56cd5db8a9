import BundleSigning
import Foundation
import NavigationPolicy
import NavigationPolicyClient
import NavigationPolicyClientSodium
import Testing

@testable import PolicyService

/// Attack round 8, F5: a `policySource` daemon relays at `/v1/policy/bundle` the bytes that
/// verified, not `cacheFile` read again by path, which whoever can write the cache directory
/// could have replaced after the check.
@Suite("policy source relay: the verified bytes")
struct PolicySourceRelayTests {
    typealias Publisher = PolicySourcePollerTests.Publisher

    /// `bundle` staged beside `cache`'s file, as a fetch stages it.
    static func stage(_ bundle: PolicyBundle, in cache: BundleCacheFile) throws -> URL {
        let staged = try cache.createStagingFile(signature: bundle.signature)
        try staged.handle.write(contentsOf: Data(bundle.bytes))
        try staged.handle.synchronize()
        try staged.handle.close()
        return staged.url
    }

    @Test(
        "a cacheFile renamed over after the check is not what the daemon relays (JSON and compiled bundles)",
        arguments: [false, true])
    func swappedCacheFileIsNotRelayed(compiled: Bool) throws {
        let publisher = try Publisher()
        let cacheFile = try PolicySourcePollerTests.cacheFile()
        let cache = BundleCacheFile(file: URL(fileURLWithPath: cacheFile))
        let trust = BundleTrust(
            trustedKeys: [publisher.keyId: try SodiumBundleVerifier(publicKeyBase64: publisher.key.publicKeyBase64)])
        let verified = try Self.bundle(publisher, cancelling: "/one", version: 10, compiled: compiled)
        let staged = try Self.stage(verified, in: cache)
        let checked = try cache.verify(staged: staged, trust: trust)
        // The daemon installs what verified…
        try cache.install(staged)
        // …and someone who can write the directory renames another (validly signed) file over it.
        let other = try Self.bundle(publisher, cancelling: "/other", version: 11, compiled: compiled)
        try cache.install(try Self.stage(other, in: cache))

        let config = """
            {"policySource":{"url":"http://publisher.invalid/v1/policy/bundle",
             "trustedKeys":{"\(publisher.keyId)":"\(publisher.key.publicKeyBase64)"},"cacheFile":"\(cacheFile)"},
             "server":{"watchConfig":false},"intake":{"enabled":false}}
            """
        let local = try PolicySnapshot.build(from: Array(config.utf8)).get()
        let snapshot = PolicySourcePoller.snapshot(of: checked, local: local, at: Date())
        #expect(snapshot.bundle.bytes == verified.bytes, "the relay is not the bundle that verified")
        #expect(snapshot.bundle.bytes != other.bytes)
        #expect(snapshot.bundle.signature == verified.signature)
        #expect(try snapshot.policy.decide(NavigationRequest(url: "https://app.example.com/one")).verdict == .cancel)
    }

    /// A signed bundle of a chain cancelling `path`, JSON or compiled.
    static func bundle(_ publisher: Publisher, cancelling path: String, version: Int, compiled: Bool) throws
        -> PolicyBundle
    {
        let json = try publisher.bundle(cancelling: path, version: version)
        guard compiled else { return json }
        let config = Array(
            #"{"defaultDecision":"allow","handlers":[{"name":"block","type":"cancel","match":{"paths":["\#(path)"]}}]}"#.utf8)
        let image = try PolicyImageFile.compile(config: config)
        return try #require(
            PolicyBundle.make(
                compiledImage: image, revision: PolicyBundle.revision(of: image), stamp: json.stamp,
                signingKey: publisher.key))
    }
}
