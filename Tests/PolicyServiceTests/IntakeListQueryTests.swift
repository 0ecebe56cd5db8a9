import Testing

@testable import PolicyService

/// Issue 26, item 13: `limit` and `after` have one spelling per number.
@Suite("intake list query numbers")
struct IntakeListQueryTests {
    @Test("ASCII digits only: no sign, no space, no leading zero, no other digits, nothing past Int64")
    func decimal() {
        #expect(IntakeEndpoints.decimal("25") == 25)
        #expect(IntakeEndpoints.decimal("9223372036854775807") == Int64.max)
        for refused in ["", "0", "05", "+2", "-0", " 2", "2 ", "0x10", "1e2", "٣", "9223372036854775808", "99999999999999999999"]
        {
            #expect(IntakeEndpoints.decimal(refused) == nil, "\(refused)")
        }
    }
}

/// Issue 38: intake requests waiting on storage are bounded (`intake.maxWaitingRequests`).
@Suite("intake storage gate")
struct IntakeStorageGateTests {
    @Test("at most limit places; a place given back can be taken again")
    func bounded() {
        let gate = IntakeStorageGate(limit: 2)
        #expect(gate.enter())
        #expect(gate.enter())
        #expect(!gate.enter())
        #expect(gate.count == 2)
        gate.leave()
        #expect(gate.enter())
        #expect(!gate.enter())
    }
}
