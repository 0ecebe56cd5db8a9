import NavigationPolicy
import Synchronization

/// One published policy: immutable once built, read by any number of threads.
final class PublishedPolicy: Sendable {
    let revision: String
    /// The signed freshness members; nil for a version-1 bundle (read only by opt-in).
    let stamp: BundleStamp?
    let policy: CompiledPolicy
    let source: NavigationPolicyClient.BundleSource

    /// The signed `policyVersion`; nil for a version-1 bundle.
    var policyVersion: Int? { stamp?.policyVersion }

    init(_ bundle: VerifiedBundle, source: NavigationPolicyClient.BundleSource) {
        self.revision = bundle.revision
        self.stamp = bundle.stamp
        self.policy = bundle.policy
        self.source = source
    }

    /// `held`'s policy under the stamp of `renewal`, a later issue of the same revision
    /// (``BundleRenewal``). The same revision is the same policy, so the one deciding keeps
    /// deciding from the pages it already maps: the renewal's own mapping is released with it
    /// instead of being kept alive in the slot's `retained` list for the client's lifetime.
    init(_ held: PublishedPolicy, renewedBy renewal: VerifiedBundle) {
        self.revision = held.revision
        self.stamp = renewal.stamp
        self.policy = held.policy
        self.source = .daemon
    }
}

/// The current policy, read without a lock and without touching a reference count.
///
/// `decide` runs on every navigation, on whatever thread the web view calls from. A lock (even
/// an uncontended one) or a strong load (a retain and release on one shared cache line) would be
/// the most expensive part of a decision, so readers do one acquiring atomic load of an
/// *unretained* pointer and use it.
///
/// Memory reclamation: an unretained reader can be preempted between the load and its last use
/// of the policy, so a policy may be freed only when no reader can still hold it. Proving that
/// needs hazard pointers or epochs; instead, every policy ever published stays alive in
/// `retained` until the client itself is released. That is safe by construction (nothing a
/// reader can reach is freed while the client lives) and cheap in practice: a new policy is
/// published only when the daemon's config changes (a 304 publishes nothing), and the default
/// compiled policy is a few KiB, so even a reload a day for a year is a few MiB; a renewed
/// signature of the same policy publishes a small wrapper around the policy already held.
/// Writers are serialized by ``BundleUpdater`` (an actor), the only code that calls `publish`.
final class PolicySnapshotSlot: @unchecked Sendable {
    // @unchecked: `retained` is mutated only by `publish`, which only the BundleUpdater actor
    // (or the client's initializer, before the slot is shared) calls; everything else is atomic.
    private let current = Atomic<Unmanaged<PublishedPolicy>?>(nil)
    private var retained: [PublishedPolicy] = []

    /// Makes `policy` current. Called by one writer at a time (see the type's comment).
    func publish(_ policy: PublishedPolicy) {
        // Retain first, then publish with release ordering, so a reader that sees the pointer
        // also sees the fully built policy and the policy is already kept alive.
        retained.append(policy)
        current.store(Unmanaged.passUnretained(policy), ordering: .releasing)
    }

    /// Runs `body` with the current policy (nil before any bundle was loaded), without a lock
    /// and without retaining it: `retained` keeps it alive for the slot's lifetime.
    @inline(__always)
    func withCurrent<Result>(_ body: (PublishedPolicy?) -> Result) -> Result {
        guard let unmanaged = current.load(ordering: .acquiring) else { return body(nil) }
        // The closure form keeps the guarantee scoped: the reference cannot escape `body`.
        return unmanaged._withUnsafeGuaranteedRef { body($0) }
    }
}
