internal import JSONSupport
public import NavigationPolicy

/// A policy bundle as `GET /v1/policy/bundle` and `navpolicyd bundle` write it, parsed,
/// checked and compiled:
/// `{"format":"navpolicy-bundle","version":1,"revision":"sha256:<hex>","policy":{…}}`.
public struct VerifiedBundle: Sendable {
    /// Bundles beyond this are refused before parsing; the default policy is a few KiB and a
    /// 100,000-handler chain about 10 MiB.
    public static let maximumBytes = 32 << 20

    /// The daemon's policy revision (`sha256:` + 64 lower-case hex digits).
    public let revision: String
    /// The compiled chain; decides exactly as the daemon with the same config does.
    public let policy: CompiledPolicy
    /// The bundle's bytes as received (what the signature covers, and what is persisted).
    public let bytes: [UInt8]

    /// Checks the signature (when `verifier` is given), then parses and compiles `bytes`.
    ///
    /// The signature is checked first, so an unsigned or tampered bundle is never even parsed.
    public init(
        bytes: [UInt8], signature: [UInt8]?, verifier: (any BundleSignatureVerifier)?
    ) throws(BundleRejection) {
        guard bytes.count <= Self.maximumBytes else {
            throw BundleRejection(.tooLarge, "\(bytes.count) bytes; the limit is \(Self.maximumBytes)")
        }
        if let verifier {
            guard let signature else {
                throw BundleRejection(.unsigned, "a signature verifier is configured and the bundle has no signature")
            }
            guard verifier.isValidSignature(signature, for: bytes) else {
                throw BundleRejection(.badSignature, "the signature does not verify with the configured key")
            }
        }
        let document: JSONValue
        do {
            // Duplicate members are refused: two readers of the same bytes must not see two policies.
            document = try JSONParser(maximumDepth: 64, rejectsDuplicateMembers: true).parse(bytes)
        } catch {
            throw BundleRejection(.malformed, "not JSON: \(error)")
        }
        guard let root = document.objectValue else {
            throw BundleRejection(.malformed, "the bundle is a JSON \(document.kindName), not an object")
        }
        let allowed = ["format", "version", "revision", "policy"]
        if let unknown = root.keys.first(where: { !allowed.contains($0) }) {
            throw BundleRejection(.malformed, "unknown member \"\(unknown)\"")
        }
        guard root["format"]?.stringValue == "navpolicy-bundle" else {
            throw BundleRejection(.malformed, "\"format\" must be \"navpolicy-bundle\"")
        }
        guard root["version"]?.integerValue == 1 else {
            throw BundleRejection(.malformed, "\"version\" must be 1 (this client reads version 1 only)")
        }
        guard let revision = root["revision"]?.stringValue, Self.isRevision(revision) else {
            throw BundleRejection(.malformed, "\"revision\" must be \"sha256:\" followed by 64 lower-case hex digits")
        }
        guard let policyValue = root["policy"], let policyObject = policyValue.objectValue else {
            throw BundleRejection(.malformed, "\"policy\" must be an object")
        }
        // The bundle carries the chain only; a daemon section here means the bytes are not a bundle.
        if let section = policyObject.keys.first(where: { $0 != "defaultDecision" && $0 != "handlers" }) {
            throw BundleRejection(.malformed, "\"policy\" has \"\(section)\"; a bundle holds defaultDecision and handlers only")
        }
        do {
            self.policy = try PolicyCompiler().compile(policyValue)
        } catch {
            throw BundleRejection(.invalidPolicy, error.description)
        }
        self.revision = revision
        self.bytes = bytes
    }

    /// `sha256:` and 64 lower-case hex digits, as the daemon's `PolicySnapshot` spells revisions.
    static func isRevision(_ text: String) -> Bool {
        let prefix = "sha256:"
        guard text.hasPrefix(prefix) else { return false }
        let hex = text.utf8.dropFirst(prefix.utf8.count)
        return hex.count == 64
            && hex.allSatisfy {
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
            }
    }
}
