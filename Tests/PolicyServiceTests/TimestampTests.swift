import Foundation
import Testing

@testable import PolicyService

#if canImport(Glibc)
    import Glibc
#endif

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

    @Test("the civil date from the day count agrees with gmtime_r on every 13th day from 1970 to 9999, and at the edges")
    func civilDateAcrossTheRange() {
        var days = Array(stride(from: 0, to: 2_932_897, by: 13))
        // Leap days, century years (2100 is not a leap year, 2000 is) and the last day of 9999.
        days += [11_016, 11_017, 10_956, 47_482, 47_541, 47_540, 2_932_895, 2_932_896]
        var mismatches: [String] = []
        for day in days {
            var seconds = time_t(day * 86_400)
            var fields = tm()
            guard gmtime_r(&seconds, &fields) != nil else {
                mismatches.append("gmtime_r failed for day \(day)")
                continue
            }
            let expected = (Int(fields.tm_year) + 1900, Int(fields.tm_mon) + 1, Int(fields.tm_mday))
            let civil = UTCTime.civilDate(daysSinceEpoch: day)
            if civil != expected { mismatches.append("day \(day): \(civil) vs \(expected)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }

    @Test("times outside 1970–9999 have no hand-written form, and the clock reads as one")
    func range() {
        #expect(UTCTime(seconds: -1, milliseconds: 0) == nil)
        #expect(UTCTime(seconds: 253_402_300_800, milliseconds: 0) == nil)
        #expect(UTCTime(seconds: 0, milliseconds: 1000) == nil)
        let last = UTCTime(seconds: 253_402_300_799, milliseconds: 999)
        #expect(last?.withText { String(decoding: $0, as: UTF8.self) } == "9999-12-31T23:59:59.999Z")
        #expect(UTCTime.now() != nil)
    }
}
