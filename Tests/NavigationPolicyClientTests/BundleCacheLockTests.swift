import Foundation
import Testing

@testable import NavigationPolicyClient

/// Attack round 10: the cache directory's lock is taken within a bound, and an origin's text in an
/// `unavailable` reason is bounded as a rejection's is.
@Suite("Cache lock and unavailable reasons")
struct BundleCacheLockTests {
    @Test func aLockHeldByAnotherProcessEndsTheInstallInsteadOfWaitingForever() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let staged = directory.appendingPathComponent("staged.partial")
        try Data("bundle".utf8).write(to: staged)
        // Another open file description of the directory, as another process would hold it.
        let holder = open(directory.path, O_RDONLY | O_DIRECTORY)
        #expect(holder >= 0)
        #expect(flock(holder, LOCK_EX) == 0)
        let started = Date()
        #expect(throws: BundleCacheWriteError.self) { try BundleCache(directory: directory).install(staged) }
        #expect(Date().timeIntervalSince(started) < BundleCache.lockWaitSeconds + 5)
        close(holder)
        // Released, the same install goes through.
        #expect(try BundleCache(directory: directory).install(staged) == nil)
    }

    @Test func anUnavailableReasonQuotingTheOriginIsBounded() {
        let etag = "\u{1B}]0;PWNED\u{07}" + String(repeating: "A", count: 90_000)
        let outcome = RefreshOutcome.unavailable(reason: "304 Not Modified for ETag \(etag)").withBoundedReason
        guard case .unavailable(let reason) = outcome else {
            Issue.record("not unavailable: \(outcome)")
            return
        }
        #expect(reason.utf8.count <= BundleText.maximumReasonBytes + 64)
        #expect(!reason.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F })
        #expect(RefreshOutcome.unavailable(reason: "HTTP 503").withBoundedReason == .unavailable(reason: "HTTP 503"))
    }
}
