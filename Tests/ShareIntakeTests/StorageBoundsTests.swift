import Testing

@testable import ShareIntake

/// Issue 38: what `maxDatabaseBytes` leaves the WAL, and how an idempotency fingerprint is compared.
@Suite("intake storage bounds")
struct StorageBoundsTests {
    @Test("maxDatabaseBytes: main file and WAL together within the limit, a checkpoint before the WAL's share is full")
    func diskBudget() {
        for (limit, page) in [(65536, Int64(4096)), (262_144, 4096), (1 << 30, 4096), (65536, 65536), (100_000, 1024)] {
            let budget = SQLiteDiskBudget(maxDatabaseBytes: limit, pageSize: page)
            #expect(budget.mainPages * page + budget.walBytes <= max(Int64(limit), 4 * page), "\(limit)/\(page): \(budget)")
            #expect(budget.mainPages >= 1 && budget.checkpointPages >= 1)
            #expect(budget.checkpointPages * page <= budget.walBytes)
        }
        let small = SQLiteDiskBudget(maxDatabaseBytes: 262_144, pageSize: 4096)
        #expect(small.mainPages == 48 && small.walBytes == 65536 && small.checkpointPages == 8, "\(small)")
    }

    @Test("a fingerprint matches byte for byte: NFC and NFD spellings of one title are different requests")
    func fingerprintBytes() {
        let claim = IdempotencyClaim(key: "k", fingerprint: #"{"title":"caf\#u{E9}"}"#)
        #expect(claim.matches(storedFingerprint: #"{"title":"caf\#u{E9}"}"#))
        // Equal as Swift Strings (canonical equivalence), different bytes.
        #expect(#"{"title":"cafe\#u{301}"}"# == claim.fingerprint)
        #expect(!claim.matches(storedFingerprint: #"{"title":"cafe\#u{301}"}"#))
        #expect(!claim.matches(storedFingerprint: nil))
    }
}
