import Foundation
import NavigationPolicy
import Testing

/// `BundleStamp.iso8601` is plain arithmetic (the WebAssembly build has no Foundation); it must
/// print what Foundation's `ISO8601DateFormatter` prints, which it replaced in the `expired`
/// reason and `bundle verify`'s `expires`.
@Suite("bundle stamp times")
struct BundleStampTimeTests {
    private func foundation(_ seconds: Int) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    @Test("the epoch, leap days, century years and the last second of 9999")
    func calendarEdges() {
        let edges = [
            0, 59, 86_399, 86_400, 951_782_400, 951_868_799, 951_868_800, 1_709_164_800, 4_102_444_800, 4_107_542_399,
            4_107_542_400, 4_133_980_800, 253_402_300_799,
        ]
        for seconds in edges {
            #expect(BundleStamp.iso8601(unixSeconds: seconds) == foundation(seconds), "\(seconds)")
        }
        #expect(BundleStamp.iso8601(unixSeconds: 951_782_400) == "2000-02-29T00:00:00Z")
    }

    @Test("ten thousand seeded times up to the year 9999")
    func seeded() {
        var state: UInt64 = 43
        for _ in 0..<10_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let seconds = Int(state >> 11) % 253_402_300_800
            #expect(BundleStamp.iso8601(unixSeconds: seconds) == foundation(seconds), "\(seconds)")
        }
    }
}
