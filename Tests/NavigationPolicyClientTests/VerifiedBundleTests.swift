import Foundation
import NavigationPolicy
import Testing

@testable import NavigationPolicyClient

@Suite("Policy bundles")
struct VerifiedBundleTests {
    @Test func aContractBundleCompilesAndDecidesLikeTheConfig() throws {
        let bundle = try VerifiedBundle(bytes: bundleBytes(), signature: nil, verifier: nil)
        #expect(bundle.revision == "sha256:" + String(repeating: "a", count: 64))
        let config = try PolicyCompiler().compile(Array(defaultPolicyJSON.utf8))
        for url in ["https://app.example.com/logout", "https://app.example.com/about", "https://pay.example.com/x", "https://a/"]
        {
            let request = NavigationRequest(url: url)
            #expect(try bundle.policy.decide(request) == config.decide(request))
        }
    }

    @Test(
        "anything that is not a version-1 bundle is refused as malformed",
        arguments: [
            "not json",
            "[]",
            #"{"format":"navpolicy-bundle","version":1,"revision":"sha256:\#(String(repeating: "a", count: 64))"}"#,
            #"{"format":"other","version":1,"revision":"sha256:\#(String(repeating: "a", count: 64))","policy":{}}"#,
            #"{"format":"navpolicy-bundle","version":3,"revision":"sha256:\#(String(repeating: "a", count: 64))","policy":{}}"#,
            // Version 2 without its freshness members, or with them malformed.
            #"{"format":"navpolicy-bundle","version":2,"revision":"sha256:\#(String(repeating: "a", count: 64))","policy":{}}"#,
            #"{"format":"navpolicy-bundle","version":2,"revision":"sha256:\#(String(repeating: "a", count: 64))","policyVersion":0,"issuedAt":1,"expiresAt":2,"policy":{}}"#,
            #"{"format":"navpolicy-bundle","version":2,"revision":"sha256:\#(String(repeating: "a", count: 64))","policyVersion":1,"issuedAt":5,"expiresAt":5,"policy":{}}"#,
            #"{"format":"navpolicy-bundle","version":2,"revision":"sha256:\#(String(repeating: "a", count: 64))","policyVersion":1,"issuedAt":1,"expiresAt":"2","policy":{}}"#,
            #"{"format":"navpolicy-bundle","version":2,"revision":"sha256:\#(String(repeating: "a", count: 64))","policyVersion":1,"issuedAt":1,"expiresAt":2,"keyId":7,"policy":{}}"#,
            // Freshness members in a version-1 bundle: not that layout.
            #"{"format":"navpolicy-bundle","version":1,"revision":"sha256:\#(String(repeating: "a", count: 64))","policyVersion":1,"policy":{}}"#,
            #"{"format":"navpolicy-bundle","version":1,"revision":"sha256:ABC","policy":{}}"#,
            #"{"format":"navpolicy-bundle","version":1,"revision":"sha256:\#(String(repeating: "A", count: 64))","policy":{}}"#,
            #"{"format":"navpolicy-bundle","version":1,"revision":"sha256:\#(String(repeating: "a", count: 64))","policy":{},"extra":1}"#,
            #"{"format":"navpolicy-bundle","version":1,"revision":"sha256:\#(String(repeating: "a", count: 64))","policy":{"server":{}}}"#,
            // Two policies in one document: a different parser could pick the other one.
            #"{"format":"navpolicy-bundle","version":1,"revision":"sha256:\#(String(repeating: "a", count: 64))","policy":{},"policy":{"defaultDecision":"cancel"}}"#,
        ])
    func malformedBundlesAreRefused(_ text: String) {
        #expect(rejection(Array(text.utf8), trust: BundleTrust(acceptsUnversionedBundles: true)) == .malformed)
    }

    @Test func aPolicyThatDoesNotCompileIsRefused() {
        let bytes = bundleBytes(policy: #"{"handlers":[{"name":"x","type":"no-such-type"}]}"#)
        #expect(rejection(bytes) == .invalidPolicy)
    }

    @Test func withAVerifierUnsignedAndTamperedBundlesAreRefusedBeforeParsing() throws {
        let verifier = ChecksumVerifier()
        let bytes = bundleBytes()
        _ = try VerifiedBundle(bytes: bytes, signature: verifier.sign(bytes), verifier: verifier)
        #expect(rejection(bytes, verifier: verifier) == .unsigned)
        var tampered = bytes
        if let index = tampered.firstIndex(of: UInt8(ascii: "l")) { tampered[index] = UInt8(ascii: "L") }
        #expect(rejection(tampered, signature: verifier.sign(bytes), verifier: verifier) == .badSignature)
    }

    @Test func cacheControlAndETagParsing() {
        #expect(BundleUpdater.maxAgeSeconds("max-age=300, no-transform") == 300)
        #expect(BundleUpdater.maxAgeSeconds("no-transform, MAX-AGE=0") == 0)
        #expect(BundleUpdater.maxAgeSeconds("max-age=-1") == nil)
        #expect(BundleUpdater.maxAgeSeconds("max-age=") == nil)
        #expect(BundleUpdater.maxAgeSeconds("no-store") == nil)
        #expect(BundleUpdater.entityTag(#""sha256:ab""#) == "sha256:ab")
        #expect(BundleUpdater.entityTag(#"W/"sha256:ab""#) == "sha256:ab")
    }
}

/// The kind of rejection for these bytes; nil when the bundle is accepted.
func rejection(
    _ bytes: [UInt8], signature: [UInt8]? = nil, verifier: (any BundleSignatureVerifier)? = nil,
    trust: BundleTrust? = nil, now: Date = Date()
) -> BundleRejection.Kind? {
    do {
        _ = try VerifiedBundle(bytes: bytes, signature: signature, trust: trust ?? BundleTrust(verifier: verifier), now: now)
        return nil
    } catch {
        return error.kind
    }
}
