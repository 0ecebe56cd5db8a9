import NavigationPolicy
import Testing

@testable import NavigationPolicyClient

/// Finding F6: when a refresh asks for a re-issue of the held bundle, and what a verified bundle
/// of the held revision may change (BundleRenewal). The same steps against a real daemon and a
/// hostile origin: IntegrationTests.BundleRenewalLiveTests.
@Suite("Renewing the held bundle's expiry")
struct BundleRenewalTests {
    /// Issued at 1,000 for 600 s: half its lifetime passes at 1,300.
    static let held = BundleStamp(policyVersion: 7, issuedAt: 1_000, expiresAt: 1_600, keyId: "k")

    static func stamp(version: Int = 7, issuedAt: Int, expiresAt: Int? = nil) -> BundleStamp {
        BundleStamp(policyVersion: version, issuedAt: issuedAt, expiresAt: expiresAt ?? issuedAt + 600, keyId: "k")
    }

    @Test func aRefreshAsksForTheReissueFromHalfTheLifetimeOn() {
        #expect(!BundleRenewal.isDue(Self.held, atUnixSeconds: 1_000))
        #expect(!BundleRenewal.isDue(Self.held, atUnixSeconds: 1_299))
        #expect(BundleRenewal.isDue(Self.held, atUnixSeconds: 1_300))
        #expect(BundleRenewal.isDue(Self.held, atUnixSeconds: 1_599))
        // Expired while deciding (an app offline for long): still renewed, never dropped.
        #expect(BundleRenewal.isDue(Self.held, atUnixSeconds: 9_999))
        // A version-1 bundle has no expiry to renew: refreshes stay conditional.
        #expect(!BundleRenewal.isDue(nil, atUnixSeconds: 9_999))
        // The daemon re-issues by the same rule, so a client never asks before the daemon
        // would answer with a later expiry.
        #expect(Self.held.isDueForReissue(atUnixSeconds: 1_300) && !Self.held.isDueForReissue(atUnixSeconds: 1_299))
    }

    @Test func aLaterIssueRenewsInTheOrderVersionIssuedExpiry() {
        #expect(BundleRenewal.judge(Self.stamp(issuedAt: 1_300), held: Self.held) == .renews)
        #expect(BundleRenewal.judge(Self.stamp(version: 8, issuedAt: 1_300), held: Self.held) == .renews)
        #expect(BundleRenewal.judge(Self.held, held: Self.held) == .unchanged)
        // The same issue time signed again with a later expiry.
        #expect(BundleRenewal.judge(Self.stamp(issuedAt: 1_000, expiresAt: 1_700), held: Self.held) == .renews)
        // Finding F1: the app shipped a bundle signed for longer than the daemon's lifetime; the
        // daemon's later issue expires earlier and still renews (a higher version, or the same
        // version issued later), instead of being refused as a replay on every refresh.
        #expect(BundleRenewal.judge(Self.stamp(version: 8, issuedAt: 1_300, expiresAt: 1_400), held: Self.held) == .renews)
        #expect(BundleRenewal.judge(Self.stamp(issuedAt: 1_300, expiresAt: 1_400), held: Self.held) == .renews)
    }

    @Test(
        "an earlier issue, a lower version or no version is refused like a replay",
        arguments: [
            (BundleStamp?.some(BundleRenewalTests.stamp(issuedAt: 900)), "an earlier issue of the revision deciding now"),
            // Issued earlier: a replay, whatever expiry it carries.
            (BundleRenewalTests.stamp(issuedAt: 900, expiresAt: 9_000), "an earlier issue of the revision deciding now"),
            (BundleRenewalTests.stamp(issuedAt: 1_000, expiresAt: 1_500), "an earlier issue of the revision deciding now"),
            (BundleRenewalTests.stamp(version: 6, issuedAt: 1_300), "policyVersion 6 is below 7"),
            (BundleRenewalTests.stamp(version: 6, issuedAt: 900), "policyVersion 6 is below 7"),
            (nil, "a version-1 bundle has no policyVersion"),
        ])
    func shorterOrOlderIssuesAreRefused(_ candidate: BundleStamp?, _ reason: String) {
        guard case .refused(let rejection) = BundleRenewal.judge(candidate, held: Self.held) else {
            Issue.record("\(String(describing: candidate)) must be refused")
            return
        }
        #expect(rejection.kind == .olderVersion)
        #expect(rejection.reason.hasPrefix(reason), "\(rejection.reason)")
    }

    @Test func aVersionOneBundleHeldIsRenewedByAnyVersionedOne() {
        #expect(BundleRenewal.judge(Self.held, held: nil) == .renews)
        #expect(BundleRenewal.judge(nil, held: nil) == .unchanged)
    }
}
