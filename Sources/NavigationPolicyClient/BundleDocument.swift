internal import JSONSupport
public import NavigationPolicy

/// A policy bundle's members, read and checked for shape only: no signature, no expiry, no
/// compile. ``VerifiedBundle`` builds on it; `navpolicyd bundle inspect` shows it.
///
/// Version 2: `{"format":"navpolicy-bundle","version":2,"revision":"sha256:<hex>",
/// "policyVersion":N,"issuedAt":N,"expiresAt":N,"keyId"?:"…","policy":{…}}`.
/// Version 1 (before signed freshness) has no `policyVersion`, `issuedAt`, `expiresAt`, `keyId`.
public struct BundleDocument: Sendable {
    /// The layout version, 1 or 2.
    public let layoutVersion: Int
    /// The daemon's policy revision (`sha256:` + 64 lower-case hex digits).
    public let revision: String
    /// The freshness members; nil for a version-1 bundle.
    public let stamp: BundleStamp?
    /// The number of handlers in the chain.
    public let handlerCount: Int
    /// `policy.defaultDecision` when present.
    public let defaultDecision: String?
    let policy: JSONValue

    /// Parses `bytes` as a bundle of layout version 1 or 2.
    public init(bytes: [UInt8]) throws(BundleRejection) {
        try self.init(root: Self.root(bytes))
    }

    /// Parses `bytes` once their signature verified with the key `head` (read before the
    /// check) named; refuses a document whose members disagree with that head: a `keyId` after
    /// `policy`, which the head never saw, did not choose the key the signature was checked with.
    init(bytes: [UInt8], signedHead head: BundleSigningHead) throws(BundleRejection) {
        try self.init(root: Self.root(bytes))
        guard stamp?.keyId == head.keyId, (layoutVersion == BundleFormat.unstampedVersion) == head.isVersionOne else {
            throw BundleRejection(
                .malformed, "\"keyId\" must come before \"policy\", where the signature check reads it with \"version\"")
        }
    }

    /// The top-level object of `bytes`, parsed whole (duplicate members refused).
    static func root(_ bytes: [UInt8]) throws(BundleRejection) -> JSONObject {
        let document: JSONValue
        do {
            // Duplicate members are refused: two readers of the same bytes must not see two policies.
            document = try JSONParser(maximumDepth: 64, rejectsDuplicateMembers: true).parse(bytes)
        } catch {
            throw BundleRejection(.malformed, "not JSON: \(error)")
        }
        guard let root = document.objectValue else {
            throw BundleRejection(.malformed, "the bundle is \(document.kindName), not a JSON object")
        }
        return root
    }

    /// The bundle's chain compiled, as the client compiles it; `invalid-policy` when it does not
    /// compile (`bundle inspect` says so too, without checking a signature).
    public func compiledPolicy() throws(BundleRejection) -> CompiledPolicy {
        do {
            return try PolicyCompiler().compile(policy)
        } catch {
            throw BundleRejection(.invalidPolicy, error.description)
        }
    }

    /// Checks every member of a parsed bundle.
    init(root: JSONObject) throws(BundleRejection) {
        guard root["format"]?.stringValue == BundleFormat.name else {
            throw BundleRejection(.malformed, "\"format\" must be \"\(BundleFormat.name)\"")
        }
        guard let version = root["version"]?.integerValue,
            version == BundleFormat.unstampedVersion || version == BundleFormat.jsonVersion
        else {
            throw BundleRejection(
                .malformed,
                "\"version\" must be \(BundleFormat.unstampedVersion) or \(BundleFormat.jsonVersion) (the layouts this client reads)"
            )
        }
        let isStamped = version == BundleFormat.jsonVersion
        let allowed = isStamped ? BundleFormat.jsonMembers + BundleFormat.stampMembers : BundleFormat.jsonMembers
        if let unknown = root.keys.first(where: { !allowed.contains($0) }) {
            throw BundleRejection(.malformed, "unknown member \"\(unknown)\" in a version-\(version) bundle")
        }
        guard let revision = root["revision"]?.stringValue, PolicyRevision.isWellFormed(revision) else {
            throw BundleRejection(.malformed, Self.revisionRule)
        }
        guard let policyValue = root["policy"], let policyObject = policyValue.objectValue else {
            throw BundleRejection(.malformed, "\"policy\" must be an object")
        }
        // The bundle carries the chain only; a daemon section here means the bytes are not a bundle.
        if let section = policyObject.keys.first(where: { !BundleFormat.policyMembers.contains($0) }) {
            throw BundleRejection(.malformed, "\"policy\" has \"\(section)\"; a bundle holds defaultDecision and handlers only")
        }
        self.layoutVersion = version
        self.revision = revision
        self.stamp = isStamped ? try Self.stamp(root) : nil
        self.policy = policyValue
        self.handlerCount = policyObject["handlers"]?.arrayValue?.count ?? 0
        self.defaultDecision = policyObject["defaultDecision"]?.stringValue
    }

    static func stamp(_ root: JSONObject) throws(BundleRejection) -> BundleStamp {
        // At most 2^53 - 1: a JSON number past it is not exact in the double it is read as
        // (2^53 + 1 reads as 2^53), so two different signed versions could compare equal.
        func whole(_ name: String, minimum: BundleNumber) throws(BundleRejection) -> BundleNumber {
            // Read as BundleNumber, not `integerValue`'s Int, which is 32 bits in the WebAssembly build.
            guard case .number(let number)? = root[name], let value = BundleNumber(exactly: number), value >= minimum,
                value <= BundleFormat.largestExactInteger
            else {
                throw BundleRejection(
                    .malformed, "\"\(name)\" must be a whole number from \(minimum) to \(BundleFormat.largestExactInteger)")
            }
            return value
        }
        let policyVersion = try whole("policyVersion", minimum: 1)
        let issuedAt = try whole("issuedAt", minimum: 0)
        let expiresAt = try whole("expiresAt", minimum: 0)
        guard expiresAt > issuedAt else {
            throw BundleRejection(.malformed, "\"expiresAt\" (\(expiresAt)) must be after \"issuedAt\" (\(issuedAt))")
        }
        // The daemon and `navpolicyd bundle` issue at most a year; a longer signed lifetime is
        // not one of theirs (and would outlive every key rotation the docs describe).
        guard expiresAt - issuedAt <= BundleFormat.longestLifetimeSeconds else {
            throw BundleRejection(
                .malformed,
                "the bundle is valid for \(expiresAt - issuedAt) s, more than a year (\(BundleFormat.longestLifetimeSeconds) s)")
        }
        var keyId: String?
        if let value = root["keyId"] {
            guard let text = value.stringValue, !text.isEmpty else {
                throw BundleRejection(.malformed, "\"keyId\" must be a non-empty string")
            }
            keyId = text
        }
        return BundleStamp(policyVersion: policyVersion, issuedAt: issuedAt, expiresAt: expiresAt, keyId: keyId)
    }

    /// Why a `revision` member is refused, in both layouts' readers.
    static let revisionRule =
        "\"revision\" must be \"\(PolicyRevision.prefix)\" followed by 64 lower-case hex digits"

    /// JSON bundles beyond this are refused before anything is read; the default policy is a few
    /// KiB and a 100,000-handler chain about 10 MiB.
    public static let maximumBytes = 32 << 20

    /// Why a version-1 bundle is refused unless the reader accepts unversioned bundles.
    static let unversionedRejection = BundleRejection(
        .unversioned,
        "a version-1 bundle has no signed policyVersion or expiry, so a replay cannot be told apart; rebuild it with this navpolicyd (or set acceptsUnversionedBundles)"
    )
}
