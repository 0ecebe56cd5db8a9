import Foundation
import NavigationPolicy
import NavigationPolicyClient

/// The default policy (config/navpolicy.json's chain).
let defaultPolicyJSON = """
    {"defaultDecision":"allow","handlers":[\
    {"name":"logout","type":"logout","match":{"paths":["/logout","/sign_out"]}},\
    {"name":"about","type":"about","match":{"paths":["/about"]}},\
    {"name":"payment","type":"payment-redirect","match":{"hosts":["pay.example.com"]},\
    "location":"https://checkout.example.com/open?target={url}"}]}
    """

/// A version-2 bundle in the contract's shape around `policy`, with a revision made of
/// `revisionDigit`, issued at Unix time 1000 and expiring at `expiresAt` (2100 by default).
func bundleBytes(
    policy: String = defaultPolicyJSON, revisionDigit: Character = "a", policyVersion: Int = 1,
    expiresAt: Int = 4_102_444_800, keyId: String? = nil
) -> [UInt8] {
    let revision = "sha256:" + String(repeating: revisionDigit, count: 64)
    let key = keyId.map { #","keyId":"\#($0)""# } ?? ""
    return Array(
        #"{"format":"navpolicy-bundle","version":2,"revision":"\#(revision)","policyVersion":\#(policyVersion),"issuedAt":\#(max(0, expiresAt - 31_536_000)),"expiresAt":\#(expiresAt)\#(key),"policy":\#(policy)}"#
            .utf8)
}

/// A version-1 bundle: the layout from before signed freshness.
func legacyBundleBytes(policy: String = defaultPolicyJSON, revisionDigit: Character = "a") -> [UInt8] {
    let revision = "sha256:" + String(repeating: revisionDigit, count: 64)
    return Array(#"{"format":"navpolicy-bundle","version":1,"revision":"\#(revision)","policy":\#(policy)}"#.utf8)
}

/// A stand-in for Ed25519 in tests without libsodium: the "signature" is a keyed checksum of the
/// bytes, so any change to the bytes (or the key) makes it invalid.
struct ChecksumVerifier: BundleSignatureVerifier {
    var key: UInt64 = 0x9E37_79B9_7F4A_7C15

    func sign(_ bytes: [UInt8]) -> [UInt8] {
        var hash = key
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return withUnsafeBytes(of: hash.bigEndian) { Array($0) }
    }

    func isValidSignature(_ signature: [UInt8], for bytes: [UInt8]) -> Bool {
        signature == sign(bytes)
    }
}

/// A fresh empty directory under the temporary directory.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("navpolicy-client-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
