import Foundation
import Testing

/// Issue 38, item 8: when two readings of a URL both cancel with different handlers, the
/// handler first in chain order is reported. A `payment-redirect` earlier in the chain lost
/// to a later block found by the other reading. Through `/v1/decide` on a real daemon.
@Suite("readings that both cancel, live", .serialized)
struct ReadingOrderLiveTests {
    /// A payment-redirect for `/pay`, then a block of `/x` and of `/pay;q` (URLPattern standard
    /// reading only), then enough handlers that the index decides.
    static let config = """
        {"defaultDecision": "allow", "handlers": [
          {"name": "pay", "type": "payment-redirect", "match": {"pathPrefixes": ["/pay"]},
           "location": "https://checkout.example/open?target={url}"},
          {"name": "block-x", "type": "cancel", "match": {"pathPrefixes": ["/x"]}},
          {"name": "pad1", "type": "cancel", "match": {"hosts": ["pad1.example"]}},
          {"name": "pad2", "type": "cancel", "match": {"hosts": ["pad2.example"]}},
          {"name": "pad3", "type": "cancel", "match": {"hosts": ["pad3.example"]}}
        ]}
        """

    @Test("the payment-redirect earlier in the chain is reported, with and without explain")
    func firstInChainOrder() throws {
        let daemon = try DaemonProcess(config: Self.config)
        // Match form `/x/..%2Fpay/cb` is blocked by block-x; the decoded form `/pay/cb` by pay.
        for explain in [false, true] {
            let answer = try daemon.decide("https://shop.example/x/..%2Fpay/cb", explain: explain)
            #expect(answer.status == 200, "\(answer.body)")
            let decision = try #require(answer.json)
            #expect(decision["handler"] as? String == "pay", "\(answer.body)")
            #expect(decision["action"] as? String == "open-external", "\(answer.body)")
            #expect((decision["location"] as? String)?.hasPrefix("https://checkout.example/open?target=") == true)
        }
    }
}
