import Foundation
import Testing

@testable import PolicyService

/// `Timestamp.iso8601` writes decision-log times by hand (issue 28, item 1: the log's cost);
/// it must say what Foundation's ISO 8601 format style says.
@Suite("timestamps")
struct TimestampTests {
    @Test("the hand-written timestamp equals Foundation's for dates across the range")
    func sameAsFoundation() {
        var generator = SystemRandomNumberGenerator()
        var dates = [
            Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_700_000_000.5),
            Date(timeIntervalSince1970: 951_782_400), Date(timeIntervalSince1970: 253_402_300_799.25),
            Date(timeIntervalSince1970: 1_795_987_192.6838326),
        ]
        for _ in 0..<5000 {
            // Whole microseconds, as the clock gives them; whole milliseconds too.
            let micros = Int64.random(in: 0..<4_102_444_800_000_000, using: &generator)
            dates.append(Date(timeIntervalSince1970: Double(micros) / 1e6))
            dates.append(Date(timeIntervalSince1970: Double(micros / 1000) / 1e3))
        }
        dates.append(Date())
        var mismatches: [String] = []
        for date in dates where Timestamp.iso8601(date) != Timestamp.foundationISO8601(date) {
            mismatches.append("\(date.timeIntervalSince1970): \(Timestamp.iso8601(date)) vs \(Timestamp.foundationISO8601(date))")
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
        #expect(
            Timestamp.iso8601(Date(timeIntervalSince1970: -1)) == Timestamp.foundationISO8601(Date(timeIntervalSince1970: -1)))
    }
}
