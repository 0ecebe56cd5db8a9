import NavigationPolicy
public import NavigationPolicyClient
public import PolicyHarness

extension HarnessEngine {
    /// The app's client: the policy as a signed compiled bundle (layout 3: a head line, then the
    /// image without the daemon's sections), verified and loaded by ``NavigationPolicyClient``
    /// as an app loads its shipped bundle, and decided through it.
    public static let clientBundle = HarnessEngine(name: "client (signed compiled bundle)") { policy in
        let bundle = try compiledBundle(config: policy.bytes)
        let verifier = HarnessBundleVerifier()
        let client = NavigationPolicyClient(
            configuration: .init(
                shippedBundle: .init(bytes: bundle, signature: verifier.sign(bundle)), verifier: verifier))
        guard client.startupIssues.isEmpty else { throw HarnessError("the client refused the bundle: \(client.startupIssues)") }
        return { request in try? client.decision(for: request) }
    }
}

/// A compiled bundle (layout 3: a head line, then the image without the daemon's sections) of
/// `config`, as `navpolicyd bundle --compiled` writes it: revision `sha256:` and 64 times
/// `revisionDigit`, issued within a year of its expiry (2100), as the daemon writes it.
public func compiledBundle(config: [UInt8], revisionDigit: Character = "a", policyVersion: Int = 1) throws -> [UInt8] {
    let image = try PolicyImage.strippingDaemonSections(
        try PolicyImage.compile(
            config: config, compiler: PolicyCompiler(), sha256: harnessDigest, checksum: harnessDigest,
            tableThreshold: harnessTableThreshold),
        checksum: harnessDigest)
    let revision = "sha256:" + String(repeating: revisionDigit, count: 64)
    let head =
        #"{"format":"navpolicy-bundle","version":3,"revision":"\#(revision)","policyVersion":\#(policyVersion),"#
        + #""issuedAt":4070908800,"expiresAt":4102444800,"compiledPolicy":{"length":\#(image.count)}}"#
    return Array(head.utf8) + [0x0A] + image
}

/// A keyed checksum standing in for Ed25519 (the harness links no libsodium): any changed byte,
/// or another key, makes the signature invalid, so the client really checks it.
public struct HarnessBundleVerifier: BundleSignatureVerifier {
    public var key: UInt64 = 0x5EED_0040_0040_5EED

    public init() {}

    public func sign(_ bytes: [UInt8]) -> [UInt8] {
        var hash = key
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return withUnsafeBytes(of: hash.bigEndian) { Array($0) }
    }

    public func isValidSignature(_ signature: [UInt8], for bytes: [UInt8]) -> Bool { signature == sign(bytes) }
}
