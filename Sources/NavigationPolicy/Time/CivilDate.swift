/// The proleptic Gregorian calendar date of a day count from 1970-01-01: the one conversion
/// behind every time navpolicyd prints without Foundation (the decision log's timestamps, a
/// bundle's expiry in RFC 3339, the WebAssembly build, which has no Foundation).
///
/// Counts from 0000-03-01 so that the leap day ends the year: a 400-year era has 146,097 days,
/// a year of the era starts at `365 × y + y/4 − y/100`, and months from March have the lengths
/// `(153 × m + 2) / 5` reproduces (Howard Hinnant's `civil_from_days`).
public struct CivilDate: Sendable, Equatable {
    public var year: Int64
    /// 1–12.
    public var month: Int64
    /// 1–31.
    public var day: Int64

    /// The date `daysSinceEpoch` days after 1970-01-01 (before it when negative).
    @inlinable
    public init(daysSinceEpoch days: Int64) {
        let shifted = days + 719_468  // days from 0000-03-01 to 1970-01-01
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }
}
