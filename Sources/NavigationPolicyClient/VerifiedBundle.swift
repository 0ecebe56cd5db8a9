public import Foundation
public import NavigationPolicy

/// A policy bundle as `GET /v1/policy/bundle` and `navpolicyd bundle` write it, parsed,
/// checked against a ``BundleTrust`` and the clock, and compiled (docs/bundles.md).
public struct VerifiedBundle: Sendable {
    /// Bundles beyond this are refused before parsing (``BundleDocument/maximumBytes``).
    public static let maximumBytes = BundleDocument.maximumBytes

    /// The daemon's policy revision (`sha256:` + 64 lower-case hex digits).
    public let revision: String
    /// The signed freshness members; nil only for a version-1 bundle read with
    /// ``BundleTrust/acceptsUnversionedBundles``.
    public let stamp: BundleStamp?
    /// The compiled chain; decides exactly as the daemon with the same config does.
    public let policy: CompiledPolicy
    /// The bundle's bytes as received (what the signature covers); a compiled bundle's are
    /// copied out of the memory (or mapped file) they are kept in on each read.
    public var bytes: [UInt8] {
        switch storage {
        case .json(let bytes): bytes
        case .compiled(let whole): Array(whole.buffer)
        }
    }
    private let storage: Storage

    /// Whether this is a compiled bundle (layout 3), whose ``bytes`` are copied out on each read.
    var isCompiled: Bool {
        if case .compiled = storage { true } else { false }
    }

    private enum Storage: Sendable {
        case json([UInt8])
        /// The whole compiled bundle: the policy's tables read the image inside it in place.
        case compiled(PolicyImageBytes)
    }

    /// Checks `bytes` as far as its signature with the key the bundle's `keyId` names, refuses a
    /// version-1 bundle (unless `trust` accepts them) and a bundle expired at `now`, then compiles.
    ///
    /// The key id is inside the signed bytes: a JSON bundle's `version` and `keyId` are read
    /// from the members before `policy` (``BundleSigningHead``, at most 64 KiB), and the whole
    /// document is parsed only once the signature verified, so an unsigned, untrusted or
    /// tampered bundle costs its head, never a parse tree (attack round 7, F7).
    public init(
        bytes: [UInt8], signature: [UInt8]?, trust: BundleTrust, now: Date = Date()
    ) throws(BundleRejection) {
        if bytes.withUnsafeBytes({ CompiledBundleHead.isCompiled($0) }) {
            try self.init(compiledBundle: PolicyImageBytes(copying: bytes), signature: signature, trust: trust, now: now)
        } else {
            try self.init(jsonBundle: bytes, signature: signature, trust: trust, now: now)
        }
    }

    /// A JSON bundle (layout 1 or 2): its head checked, its signature verified, then parsed and compiled.
    private init(jsonBundle bytes: [UInt8], signature: [UInt8]?, trust: BundleTrust, now: Date) throws(BundleRejection) {
        // Through Result: Array.withUnsafeBytes rethrows untyped errors.
        let head = try bytes.withUnsafeBytes { buffer in
            Result { () throws(BundleRejection) in try Self.checkedHead(ofJSON: buffer, signature: signature, trust: trust) }
        }.get()
        try self.init(jsonBundle: bytes, head: head, signature: signature, trust: trust, now: now)
    }

    /// What a JSON bundle `buffer` is checked for before a byte past its head is read: its size,
    /// its head (``BundleSigningHead``), the unversioned refusal and the key its `keyId` names
    /// (``BundleTrust/keyChoice(_:isVersionOne:keyId:)``: a missing signature, an untrusted id).
    static func checkedHead(ofJSON buffer: UnsafeRawBufferPointer, signature: [UInt8]?, trust: BundleTrust)
        throws(BundleRejection) -> BundleSigningHead
    {
        guard buffer.count <= Self.maximumBytes else {
            throw BundleRejection(.tooLarge, "\(buffer.count) bytes; the limit is \(Self.maximumBytes)")
        }
        let head = try BundleSigningHead(buffer)
        if head.isVersionOne, !trust.acceptsUnversionedBundles {
            throw BundleDocument.unversionedRejection
        }
        _ = try trust.keyChoice(signature, isVersionOne: head.isVersionOne, keyId: head.keyId)
        return head
    }

    /// A JSON bundle whose head passed ``checkedHead(ofJSON:signature:trust:)``: the signature
    /// verified over `bytes`, then the document parsed (and held to its head), its expiry checked
    /// and its policy compiled.
    init(jsonBundle bytes: [UInt8], head: BundleSigningHead, signature: [UInt8]?, trust: BundleTrust, now: Date)
        throws(BundleRejection)
    {
        try trust.checkSignature(signature, bytes: bytes, isVersionOne: head.isVersionOne, keyId: head.keyId)
        let document = try BundleDocument(bytes: bytes, signedHead: head)
        if let stamp = document.stamp {
            let nowSeconds = Int(now.timeIntervalSince1970.rounded(.down))
            if stamp.isExpired(atUnixSeconds: nowSeconds) {
                throw BundleRejection(.expired, stamp.expiryReason(atUnixSeconds: nowSeconds))
            }
        }
        self.policy = try document.compiledPolicy()
        self.revision = document.revision
        self.stamp = document.stamp
        self.storage = .json(bytes)
    }

    /// Whether `bytes` are a compiled bundle (layout 3), for a caller that maps the file first.
    public static func isCompiledBundle(_ bytes: UnsafeRawBufferPointer) -> Bool { CompiledBundleHead.isCompiled(bytes) }

    /// Compiled bundles beyond this are refused (``CompiledBundleHead/maximumBundleBytes``).
    public static let maximumCompiledBytes = CompiledBundleHead.maximumBundleBytes

    /// A compiled bundle (`navpolicyd bundle --compiled`), held where it is (an app maps the
    /// downloaded file and hands the mapping over): the signature is checked over its bytes in
    /// place, then the image inside is checked (every offset, length and order) and used in
    /// place, without compiling its tables. The image checksum is not recomputed: the
    /// signature covers every byte.
    public init(
        compiledBundle whole: PolicyImageBytes, signature: [UInt8]?, trust: BundleTrust, now: Date = Date()
    ) throws(BundleRejection) {
        guard whole.buffer.count <= Self.maximumCompiledBytes else {
            throw BundleRejection(.tooLarge, "\(whole.buffer.count) bytes; the limit is \(Self.maximumCompiledBytes)")
        }
        let head = try CompiledBundleHead(whole.buffer)
        try trust.checkSignature(signature, buffer: whole.buffer, keyId: head.stamp.keyId)
        let nowSeconds = Int(now.timeIntervalSince1970.rounded(.down))
        if head.stamp.isExpired(atUnixSeconds: nowSeconds) {
            throw BundleRejection(.expired, head.stamp.expiryReason(atUnixSeconds: nowSeconds))
        }
        self.policy = try Self.policy(inCompiled: whole, head: head)
        self.revision = head.revision
        self.stamp = head.stamp
        self.storage = .compiled(whole)
    }

    /// The image of a compiled bundle (`whole`, whose head is `head`), checked (every offset,
    /// length and order) and loaded in place; `invalid-policy` when it is refused. The image
    /// checksum is not recomputed: a verified bundle's signature covers every byte, and
    /// `bundle inspect` checks no signature.
    public static func policy(inCompiled whole: PolicyImageBytes, head: CompiledBundleHead) throws(BundleRejection)
        -> CompiledPolicy
    {
        try head.policy(in: whole, checksum: nil)
    }

    /// The single-key form from before key ids: `verifier` (when given) checks every bundle.
    public init(bytes: [UInt8], signature: [UInt8]?, verifier: (any BundleSignatureVerifier)?) throws(BundleRejection) {
        try self.init(bytes: bytes, signature: signature, trust: BundleTrust(verifier: verifier))
    }
}
