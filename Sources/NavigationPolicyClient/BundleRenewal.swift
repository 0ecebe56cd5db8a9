import NavigationPolicy

/// Renewing the signature of the bundle a client holds while its policy stays the same
/// (finding F6).
///
/// The daemon's `ETag` is the policy revision, so while the policy is unchanged every
/// `If-None-Match` refresh is a 304, and a client would keep the signed `expiresAt` of the first
/// bundle it fetched: once that passes, its cache and its shipped copy are refused at the next
/// launch (fail closed) although the daemon is up and serves an unexpired re-issue of the same
/// policy. So past half the held bundle's lifetime, the rule the daemon re-issues by, a refresh
/// asks without `If-None-Match`, and a 200 of the same revision replaces the held bundle only if
/// it verified (signature, key, expiry: ``VerifiedBundle``) and this judgement says it is a
/// later issue.
enum BundleRenewal {
    /// Whether the next refresh asks without `If-None-Match`: the held bundle is past half its
    /// signed lifetime. A version-1 bundle (no stamp) has no expiry to renew.
    static func isDue(_ held: BundleStamp?, atUnixSeconds now: Int) -> Bool {
        held?.isDueForReissue(atUnixSeconds: now) ?? false
    }

    /// What a verified bundle of the revision the client holds does to the held one.
    enum Judgement: Sendable, Equatable {
        /// A later issue: it replaces the held bundle and the cache file.
        case renews
        /// The same issue (or one no later): nothing changes.
        case unchanged
        /// An earlier issue, or a lower or missing `policyVersion`: refused like a replay.
        case refused(BundleRejection)
    }

    /// Compares the stamp of a verified bundle of the held revision (`candidate`) with the held
    /// one. Issues are ordered by `policyVersion`, then `issuedAt`, then `expiresAt`: a later
    /// issue renews, the same one changes nothing, an earlier one is refused like a replay.
    ///
    /// Only validly signed bundles get here, so an answer can only be an issue the signer made:
    /// a replayed one is earlier in that order and refused, and nothing can lower the held
    /// version. A later issue may carry an *earlier* expiry (finding F1 of the outside attack:
    /// an app ships a bundle signed for a year, the daemon re-issues for its own seven days);
    /// it is accepted, since refusing it made every refresh download the whole bundle again
    /// and report a genuine daemon as a replay, until the daemon's expiry passed the shipped one.
    static func judge(_ candidate: BundleStamp?, held: BundleStamp?) -> Judgement {
        guard let held else {
            // A version-1 bundle held: a versioned one of the same policy only adds a signed
            // version and expiry (as any verified bundle may replace a version-1 one).
            return candidate == nil ? .unchanged : .renews
        }
        guard let candidate else {
            return .refused(
                BundleRejection(
                    .olderVersion, "a version-1 bundle has no policyVersion; the one deciding has \(held.policyVersion)"))
        }
        if candidate.policyVersion < held.policyVersion {
            return .refused(
                BundleRejection(
                    .olderVersion,
                    "policyVersion \(candidate.policyVersion) is below \(held.policyVersion), the version deciding now"))
        }
        let candidateIssue = (candidate.policyVersion, candidate.issuedAt, candidate.expiresAt)
        let heldIssue = (held.policyVersion, held.issuedAt, held.expiresAt)
        if candidateIssue < heldIssue {
            let issued = BundleStamp.iso8601(unixSeconds: candidate.issuedAt)
            let current = BundleStamp.iso8601(unixSeconds: held.issuedAt)
            return .refused(
                BundleRejection(
                    .olderVersion,
                    "an earlier issue of the revision deciding now: issued \(issued), expires "
                        + "\(BundleStamp.iso8601(unixSeconds: candidate.expiresAt)); the one deciding was issued \(current)"))
        }
        return candidateIssue > heldIssue ? .renews : .unchanged
    }
}
