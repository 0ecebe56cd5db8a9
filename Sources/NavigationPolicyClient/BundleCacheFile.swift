public import Foundation
public import NavigationPolicy

/// The app client's last-good-bundle file and its checks, for a daemon that pulls its policy
/// from another server (`policySource`, docs/bundles.md "A fleet pulls"): the same file layout
/// (``BundleCache``), the same mapping, the same ``VerifiedBundle`` check (key id, Ed25519
/// signature, expiry, JSON and compiled layouts) and the same rule for which bundle may replace
/// the one deciding (``BundleUpdater/replayRejection(_:current:)``, ``BundleRenewal``).
///
/// A daemon and an app must refuse exactly the same bundles, so the daemon calls these rather
/// than restating any of the checks.
public struct BundleCacheFile: Sendable {
    private let cache: BundleCache

    /// The file at `file` (written by rename from staging files beside it).
    public init(file: URL) {
        self.cache = BundleCache(file: file)
    }

    /// The file's path.
    public var file: URL { cache.file }

    /// The largest bundle a download may bring: a compiled bundle's limit and room for its head.
    public static let maximumBundleBytes = VerifiedBundle.maximumFileBytes

    /// A new staging file beside ``file`` holding the two header lines (the signature
    /// `signature`, nil for none): the caller appends the body to the returned handle, flushes
    /// it (`synchronize`) and closes it, then ``verify(staged:trust:now:)``s it.
    public func createStagingFile(signature: [UInt8]?) throws(BundleCacheWriteError) -> (url: URL, handle: FileHandle) {
        try cache.createStagingFile(signature: signature)
    }

    /// Deletes staging files older than `age` that a killed process left behind.
    public func removeAbandonedStagingFiles(olderThan age: TimeInterval = 600) {
        cache.removeAbandonedStagingFiles(olderThan: age)
    }

    /// A bundle file that passed the check, with the signature stored with it.
    public struct Checked: Sendable {
        public let bundle: VerifiedBundle
        /// The detached signature the file holds (nil: accepted unsigned).
        public let signature: [UInt8]?
        /// The file as mapped for the check: the inode that verified, whatever is renamed over
        /// its path since.
        let mapping: MappedBundleFile

        /// The verified bundle's bytes, for a daemon to relay at `/v1/policy/bundle`: a JSON
        /// bundle's are the very copy the signature was checked over; a compiled bundle's are
        /// copied out of the mapping that verified (its pages handed back as the copy reads them,
        /// so they do not stay resident beside the ones the policy decides from). Never read
        /// again by path: whoever can write the cache directory could have renamed another file
        /// there after the check (attack round 8, F5).
        public func relayBytes() -> [UInt8] {
            guard bundle.isCompiled else { return bundle.bytes }
            // The copy throws nothing; the closure is typed so for the residency helper.
            return (try? mapping.checkingWithBoundedResidency { () throws(BundleRejection) in bundle.bytes }) ?? bundle.bytes
        }
    }

    /// The last good bundle, mapped and checked as the app client checks its cache at launch;
    /// nil when there is no file.
    public func load(trust: BundleTrust, now: Date = Date()) throws(BundleRejection) -> Checked? {
        try Self.verify(file, trust: trust, now: now)
    }

    /// A staged download, mapped and checked as the app client checks a refresh; the bundle
    /// decides from the mapping (renaming the file by ``install(_:)`` keeps the mapping valid).
    public func verify(staged: URL, trust: BundleTrust, now: Date = Date()) throws(BundleRejection) -> Checked {
        guard let checked = try Self.verify(staged, trust: trust, now: now) else {
            throw BundleRejection(.unreadable, "\(staged.path) vanished")
        }
        return checked
    }

    private static func verify(_ url: URL, trust: BundleTrust, now: Date) throws(BundleRejection) -> Checked? {
        guard let stored = try BundleCache.load(url) else { return nil }
        // Its pages are handed back as the check reads them: the bundle deciding now and this
        // one are never both resident whole (MappedBundleFile).
        let bundle = try stored.mapping.checkingWithBoundedResidency { () throws(BundleRejection) in
            try VerifiedBundle(inPlace: stored.bundle, signature: stored.signature, trust: trust, now: now)
        }
        return Checked(bundle: bundle, signature: stored.signature, mapping: stored.mapping)
    }

    /// Makes a verified staged file the last good bundle: read-only, then rename(2) over
    /// ``file``, so a restart reads the old file or the new one, never a mix.
    public func install(_ staged: URL) throws(BundleCacheWriteError) {
        try cache.install(staged)
    }
}

extension BundleCache {
    /// The cache at the path `file` rather than the app's fixed name in a directory.
    init(file: URL) {
        self.file = file
    }
}

/// What a verified bundle does to the one deciding now: the app client's refresh rule, public
/// for the daemon's `policySource` (one rule, so a fleet and its apps accept the same bundles).
public enum BundleSuccession: Sendable, Equatable {
    /// Another revision with a higher `policyVersion` (or nothing held): it replaces the held one.
    case replaces
    /// A later issue of the revision held (a renewed signature and expiry): it replaces the
    /// held stamp; the policy is the same.
    case renews
    /// The same issue of the revision held: nothing changes.
    case unchanged
    /// Older, or a replay: refused, the held bundle keeps deciding.
    case refused(BundleRejection)

    /// Judges `candidate` against the held bundle (`heldRevision` and `heldStamp`; nil revision
    /// when nothing is held).
    public static func judge(_ candidate: VerifiedBundle, heldRevision: String?, heldStamp: BundleStamp?) -> Self {
        guard let heldRevision else { return .replaces }
        if heldRevision == candidate.revision {
            switch BundleRenewal.judge(candidate.stamp, held: heldStamp) {
            case .renews: return .renews
            case .unchanged: return .unchanged
            case .refused(let rejection): return .refused(rejection)
            }
        }
        if let rejection = BundleUpdater.replayRejection(candidate, current: heldStamp?.policyVersion) {
            return .refused(rejection)
        }
        return .replaces
    }

    /// Whether the next fetch asks without `If-None-Match`, so that a re-issue with a later
    /// expiry replaces a held bundle past half its signed lifetime (``BundleRenewal/isDue(_:atUnixSeconds:)``).
    public static func isRenewalDue(_ held: BundleStamp?, atUnixSeconds now: Int) -> Bool {
        BundleRenewal.isDue(held, atUnixSeconds: now)
    }

    /// The signature an answer carries in `Navpolicy-Bundle-Signature` (base64); nil for none.
    public static func signature(fieldValue: String?) -> Result<[UInt8]?, BundleRejection> {
        guard let fieldValue else { return .success(nil) }
        guard let decoded = SignatureText.decode(fieldValue) else {
            return .failure(BundleRejection(.badSignature, "\(BundleFormat.signatureField) is not base64"))
        }
        return .success(decoded)
    }
}
