import Foundation
import NavigationPolicy
import Testing

@testable import NavigationPolicyClient

/// Attack round 7, F7: a JSON bundle is read as far as the members before `policy` (its head)
/// until its signature verified; an unsigned 32 MiB bundle was parsed whole first (466 MB).
@Suite("bundle head: what is read before the signature")
struct BundleSigningHeadTests {
    static let key = ChecksumVerifier(key: 3)
    static let trust = BundleTrust(trustedKeys: ["app": key])
    static let revision = "sha256:" + String(repeating: "a", count: 64)

    /// A bundle whose chain is not JSON: a reader that parsed it before the key and signature
    /// checks would refuse it as `malformed`, whatever its head says.
    static func unparsable(keyId: String?) -> [UInt8] { bundleBytes(policy: "{not json", keyId: keyId) }

    static func reason(_ bytes: [UInt8], signature: [UInt8]? = nil, trust: BundleTrust = BundleTrust()) -> String {
        do {
            _ = try VerifiedBundle(bytes: bytes, signature: signature, trust: trust)
            return "accepted"
        } catch {
            return error.description
        }
    }

    @Test("unsigned, untrusted, unversioned and forged bundles are refused before their chain is parsed")
    func refusedBeforeTheChainIsParsed() throws {
        let named = Self.unparsable(keyId: "app")
        #expect(rejection(named, trust: Self.trust) == .unsigned)
        let untrusted = Self.unparsable(keyId: "retired")
        #expect(rejection(untrusted, signature: Self.key.sign(untrusted), trust: Self.trust) == .unknownKey)
        #expect(rejection(named, signature: ChecksumVerifier(key: 4).sign(named), trust: Self.trust) == .badSignature)
        #expect(rejection(legacyBundleBytes(policy: "{not json"), trust: BundleTrust()) == .unversioned)
        // Once the trusted key verified it, the chain is parsed and refused for what it is.
        #expect(rejection(named, signature: Self.key.sign(named), trust: Self.trust) == .malformed)
        // The same from a file, as an app's shipped bundle and a policySource daemon's cache are read.
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("policy-bundle.json")
        try Data(untrusted).write(to: file)
        do {
            _ = try NavigationPolicyClient.ShippedBundle(contentsOf: file, signature: Self.key.sign(untrusted))
                .verified(trust: Self.trust)
            Issue.record("a bundle naming an untrusted key was accepted")
        } catch {
            #expect(error.kind == .unknownKey, "\(error)")
        }
    }

    @Test("keyId or version after policy is malformed, even when a trusted key signed it")
    func membersAfterThePolicy() {
        let stamp = #""policyVersion":1,"issuedAt":4070908800,"expiresAt":4102444800"#
        let lateKey = Array(
            #"{"format":"navpolicy-bundle","version":2,"revision":"\#(Self.revision)",\#(stamp),"policy":{},"keyId":"app"}"#
                .utf8)
        // The head names no key: with keys trusted, nothing to choose one by.
        #expect(rejection(lateKey, signature: Self.key.sign(lateKey), trust: Self.trust) == .unknownKey)
        // Without keys, the whole document disagrees with the head it was checked by.
        #expect(Self.reason(lateKey).hasPrefix(#"malformed: "keyId" must come before "policy""#), "\(Self.reason(lateKey))")
        let lateVersion = Array(
            #"{"format":"navpolicy-bundle","revision":"\#(Self.revision)",\#(stamp),"policy":{},"version":2}"#.utf8)
        #expect(Self.reason(lateVersion).hasPrefix(#"malformed: "version" must come before "policy""#))
    }

    @Test("the head holds the members a bundle has, once each, and ends within 64 KiB")
    func headBounds() {
        let extra = Array(#"{"format":"navpolicy-bundle","version":1,"extra":1,"revision":"x","policy":{}}"#.utf8)
        #expect(Self.reason(extra) == #"malformed: unknown member "extra" in a bundle"#)
        let twice = Array(#"{"format":"navpolicy-bundle","version":1,"version":1,"policy":{}}"#.utf8)
        #expect(Self.reason(twice) == #"malformed: duplicate member "version""#)
        #expect(Self.reason(Array("[1,2]".utf8)) == "malformed: the bundle is an array, not a JSON object")
        #expect(Self.reason(Array("{\"version\":".utf8)).hasPrefix("malformed: not JSON: line 1"))
        // A head past 64 KiB, whether or not the cut splits a character: refused as that, not as bad UTF-8.
        for lead in ["", "x"] {
            let long = Array(
                (#"{"format":"navpolicy-bundle","version":2,"revision":""# + lead + String(repeating: "é", count: 40_000)
                    + #"","policy":{}}"#).utf8)
            #expect(
                Self.reason(long)
                    == #"malformed: the members before "policy" must end within the first 65536 bytes (the daemon writes them in a few hundred)"#
            )
        }
    }

    /// What `read` gives: the head it describes, or its refusal.
    static func outcome(_ read: () throws(BundleRejection) -> String) -> String {
        do {
            return try read()
        } catch {
            return "refused: \(error.description)"
        }
    }

    /// Attack round 10, F5: the WebAssembly build reads a bundle's head from a copy of its first
    /// 64 KiB and its length, never the whole bundle, until the signature verified; each reader
    /// must give from those what it gives from the whole bundle, refusals and their reasons too.
    @Test("a head read from the first 64 KiB and the length is the head read from the whole bundle")
    func headFromPrefix() {
        var bundles: [[UInt8]] = [
            bundleBytes(keyId: "app"), Self.unparsable(keyId: "retired"), legacyBundleBytes(), Array("{\"version\":".utf8),
            [], Array("[1,2]".utf8),
        ]
        // Heads past 64 KiB, the cut splitting a character or not; and a short head before a long chain.
        for lead in ["", "x"] {
            bundles.append(bundleBytes(keyId: lead + String(repeating: "é", count: 40_000)))
            bundles.append(Array(("{\"version\":2,\"keyId\":\"" + lead + String(repeating: "é", count: 40_000)).utf8))
        }
        bundles.append(bundleBytes(policy: "[" + String(repeating: " ", count: 100_000) + "]", keyId: "app"))
        // Compiled heads: an image of the length the head claims, of another length, a head line past 64 KiB.
        let compiled = { (length: Int, image: Int, keyId: String) -> [UInt8] in
            Array(
                #"{"format":"navpolicy-bundle","version":3,"revision":"\#(Self.revision)","policyVersion":2,"issuedAt":4070908800,"expiresAt":4102444800,"keyId":"\#(keyId)","compiledPolicy":{"length":\#(length)}}"#
                    .utf8) + [0x0A] + [UInt8](repeating: 0, count: image)
        }
        bundles += [
            compiled(100_000, 100_000, "app"), compiled(10, 10, "app"), compiled(100_001, 100_000, "app"),
            compiled(100_000, 100_000, String(repeating: "k", count: 70_000)),
        ]
        for bytes in bundles {
            bytes.withUnsafeBytes { whole in
                let prefix = UnsafeRawBufferPointer(rebasing: whole.prefix(BundleSigningHead.maximumBytes))
                let json = { (buffer: UnsafeRawBufferPointer, count: Int) in
                    Self.outcome { () throws(BundleRejection) in
                        let head = try BundleSigningHead(prefix: buffer, bundleCount: count)
                        return "\(head.isVersionOne) \(head.keyId.map { EchoedText.bounded($0) } ?? "-")"
                    }
                }
                let head = { (buffer: UnsafeRawBufferPointer, count: Int) in
                    Self.outcome { () throws(BundleRejection) in
                        let head = try CompiledBundleHead(prefix: buffer, bundleCount: count)
                        return "\(head.revision) \(head.stamp) \(head.imageOffset) \(head.imageLength)"
                    }
                }
                #expect(json(prefix, whole.count) == json(whole, whole.count))
                #expect(head(prefix, whole.count) == head(whole, whole.count))
                #expect(CompiledBundleHead.isCompiled(prefix) == CompiledBundleHead.isCompiled(whole))
            }
        }
    }
}
