/// The policy bundle's wire format (docs/bundles.md), declared once for the daemon that writes
/// bundles (`PolicyBundle`, `GET /v1/policy/bundle`, `navpolicyd bundle`) and the client that
/// reads them (`BundleDocument`, `CompiledBundleHead`, the refresh): the names, the layout
/// versions, the members each layout has and the bounds of its numbers. The revision's spelling
/// is ``PolicyRevision``, the freshness members' type ``BundleStamp``.
///
/// A JSON bundle (versions 1 and 2) is one object: ``jsonMembers`` (and, from version 2, the
/// ``stampMembers``) with the chain under `policy`. A compiled bundle (version 3) is a JSON head
/// line (``compiledHeadMembers``), a newline, then the compiled image's bytes. The detached
/// Ed25519 signature covers the exact bytes and travels in ``signatureField`` (base64), or in a
/// `.sig` file beside a shipped bundle.
public enum BundleFormat {
    /// The `format` member every bundle carries, so a reader can refuse another document.
    public static let name = "navpolicy-bundle"
    /// The response field that carries the base64 of the body's detached Ed25519 signature.
    public static let signatureField = "Navpolicy-Bundle-Signature"
    /// The extension of the file beside a bundle file that holds the same base64 signature
    /// (`FILE.sig`, as `navpolicyd bundle --sign` writes it and a shipped bundle is read with).
    public static let signatureFileExtension = "sig"

    /// The first JSON layout: no freshness members, no key id (still read, never written).
    public static let unstampedVersion = 1
    /// The JSON layout the daemon writes: version 1 plus the signed freshness (``stampMembers``).
    public static let jsonVersion = 2
    /// The compiled layout: a JSON head line, a newline, the compiled image.
    public static let compiledVersion = 3

    /// The members of a version-1 bundle, and the ones every JSON bundle has.
    public static let jsonMembers = ["format", "version", "revision", "policy"]
    /// The freshness members versions 2 and 3 add (``BundleStamp``); `keyId` only when signed.
    public static let stampMembers = ["policyVersion", "issuedAt", "expiresAt", "keyId"]
    /// The members of a compiled bundle's head line.
    public static let compiledHeadMembers = ["format", "version", "revision"] + stampMembers + ["compiledPolicy"]
    /// The config keys the `policy` member holds: the chain, without the daemon's sections.
    public static let policyMembers = ["defaultDecision", "handlers"]

    /// The largest `policyVersion` (2^53 - 1): a JSON number past it is not exact in the double
    /// it is read as (2^53 + 1 reads as 2^53), so two different signed versions could compare equal.
    public static let largestExactInteger: BundleNumber = 9_007_199_254_740_991
    /// The longest lifetime a bundle is issued for, a year: the daemon's
    /// `server.bundle.lifetimeSeconds` and `navpolicyd bundle --lifetime` stop there, and a
    /// reader refuses a longer one (it would outlive every key rotation the docs describe).
    public static let longestLifetimeSeconds: BundleNumber = 31_536_000
}
