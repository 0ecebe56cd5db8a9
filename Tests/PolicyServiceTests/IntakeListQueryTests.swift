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
