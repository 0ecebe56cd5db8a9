public import Foundation
import NavigationPolicy

#if canImport(Glibc)
    import Glibc
#endif

/// RFC 3339 timestamps in UTC with milliseconds, for logs and API fields.
public enum Timestamp {
    /// `2026-12-02T03:04:59.676Z`. Years 1970 to 9999 are written by ``UTCTime`` with integer
    /// arithmetic; other years go to Foundation. The unit tests check that both give the same text.
    public static func iso8601(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        guard let time = UTCTime(interval) else { return foundationISO8601(date) }
        return time.withText { String(decoding: $0, as: UTF8.self) }
    }

    /// The same text from Foundation's ISO 8601 format style.
    static func foundationISO8601(_ date: Date) -> String {
        date.formatted(
            .iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: true).timeSeparator(.colon)
                .timeZone(separator: .omitted))
    }
}

/// A wall-clock instant in years 1970–9999 at millisecond precision, written as RFC 3339 text
/// without a formatter, a calendar or `gmtime_r`.
///
/// Every decision-log line carries one. Foundation's ISO 8601 style cost ~5% of a logged GET
/// `/v1/decide`, and `gmtime_r` takes glibc's time-zone lock on every call (all request threads
/// would queue on it); the civil date follows from the day count by integer arithmetic (the
/// proleptic Gregorian calendar, which is what RFC 3339 and Foundation use).
struct UTCTime: Sendable, Equatable {
    /// Whole seconds since 1970-01-01T00:00:00Z.
    let seconds: Int
    /// 0–999.
    let milliseconds: Int

    /// Seconds before year 10000: later instants need a fifth year digit RFC 3339 lacks.
    private static let limit = 253_402_300_800

    /// nil outside 1970–9999.
    init?(seconds: Int, milliseconds: Int) {
        guard seconds >= 0, seconds < Self.limit, (0...999).contains(milliseconds) else { return nil }
        self.seconds = seconds
        self.milliseconds = milliseconds
    }

    /// From seconds since the epoch as a `TimeInterval` (milliseconds truncated, as Foundation does).
    init?(_ interval: Double) {
        guard interval >= 0, interval < Double(Self.limit) else { return nil }
        let whole = interval.rounded(.down)
        self.init(seconds: Int(whole), milliseconds: min(999, Int((interval - whole) * 1000)))
    }

    /// The clock now (`CLOCK_REALTIME`), read without building a `Date`.
    static func now() -> UTCTime? {
        var clock = timespec()
        guard clock_gettime(CLOCK_REALTIME, &clock) == 0 else { return nil }
        return UTCTime(seconds: Int(clock.tv_sec), milliseconds: Int(clock.tv_nsec) / 1_000_000)
    }

    /// The text's length: `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    static let textLength = 24

    /// Calls `body` with the 24 bytes of the text, formatted on the stack.
    func withText<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.textLength) { buffer in
            write(into: buffer, at: 0)
            return body(UnsafeBufferPointer(buffer))
        }
    }

    /// Writes the 24 bytes of the text into `buffer` from `offset` (the caller makes the room:
    /// the decision log formats its line's opening, the time and the closing quote in one
    /// buffer and appends them at once).
    ///
    /// Two digits at a time from a table: the division-per-digit loop this replaced cost ~460
    /// instructions a line, this ~150 (bench/decision-log-count.sh).
    func write(into buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int) {
        precondition(offset >= 0 && buffer.count - offset >= Self.textLength, "no room for the timestamp")
        let days = seconds / 86_400
        let secondOfDay = seconds % 86_400
        let (year, month, day) = Self.civilDate(daysSinceEpoch: days)
        Self.pairs.withUTF8Buffer { pairs in
            // `value` is 0–99 at every call below: two table bytes.
            func put(_ value: Int, at position: Int) {
                buffer[offset + position] = pairs[2 * value]
                buffer[offset + position + 1] = pairs[2 * value + 1]
            }
            put(year / 100, at: 0)
            put(year % 100, at: 2)
            buffer[offset + 4] = UInt8(ascii: "-")
            put(month, at: 5)
            buffer[offset + 7] = UInt8(ascii: "-")
            put(day, at: 8)
            buffer[offset + 10] = UInt8(ascii: "T")
            put(secondOfDay / 3600, at: 11)
            buffer[offset + 13] = UInt8(ascii: ":")
            put(secondOfDay / 60 % 60, at: 14)
            buffer[offset + 16] = UInt8(ascii: ":")
            put(secondOfDay % 60, at: 17)
            buffer[offset + 19] = UInt8(ascii: ".")
            buffer[offset + 20] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: milliseconds / 100)
            put(milliseconds % 100, at: 21)
            buffer[offset + 23] = UInt8(ascii: "Z")
        }
    }

    /// "00", "01", … "99" back to back.
    private static let pairs: StaticString = """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """

    /// Year, month (1–12) and day (1–31) of a day count from 1970-01-01 (≥ 0): the core's
    /// ``CivilDate``, the one conversion every printed time goes through.
    static func civilDate(daysSinceEpoch days: Int) -> (year: Int, month: Int, day: Int) {
        let date = CivilDate(daysSinceEpoch: Int64(days))
        return (Int(date.year), Int(date.month), Int(date.day))
    }
}
