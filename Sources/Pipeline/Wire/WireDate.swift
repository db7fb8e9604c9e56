import Foundation

/// The one time format of the pipeline's records: ISO 8601 in UTC with milliseconds,
/// `2026-11-23T10:00:00.125Z`, milliseconds truncated (what Foundation's
/// `Date.ISO8601FormatStyle(includingFractionalSeconds: true)` writes), computed without a
/// formatter or a calendar, since every outcome carries at least two.
public enum WireDate {
    /// `date`'s text, as ASCII bytes.
    public static func bytes(_ date: Date) -> [UInt8] {
        // Whole seconds first, then the fraction's milliseconds: scaling the whole value by 1,000
        // rounds differently from Foundation's formatter in the last bit.
        let interval = date.timeIntervalSince1970
        let seconds = interval.rounded(.down)
        let milliseconds = Int64(seconds) * 1_000 + Int64(((interval - seconds) * 1_000).rounded(.down))
        let (days, dayMilliseconds) = floorDivide(milliseconds, 86_400_000)
        let (year, month, day) = civil(daysSinceEpoch: days)
        var out: [UInt8] = []
        out.reserveCapacity(24)
        append(year, digits: 4, to: &out)
        out.append(UInt8(ascii: "-"))
        append(month, digits: 2, to: &out)
        out.append(UInt8(ascii: "-"))
        append(day, digits: 2, to: &out)
        out.append(UInt8(ascii: "T"))
        append(dayMilliseconds / 3_600_000, digits: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        append(dayMilliseconds / 60_000 % 60, digits: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        append(dayMilliseconds / 1_000 % 60, digits: 2, to: &out)
        out.append(UInt8(ascii: "."))
        append(dayMilliseconds % 1_000, digits: 3, to: &out)
        out.append(UInt8(ascii: "Z"))
        return out
    }

    /// `date`'s text.
    public static func text(_ date: Date) -> String { String(decoding: bytes(date), as: UTF8.self) }

    /// Reads a time written in ISO 8601, with or without fractional seconds.
    public static func parse(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
        return try? Date(text, strategy: .iso8601)
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let quotient = value >= 0 ? value / divisor : -((-value - 1) / divisor) - 1
        return (quotient, value - quotient * divisor)
    }

    /// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's
    /// days-to-civil algorithm).
    private static func civil(daysSinceEpoch days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func append(_ value: Int64, digits: Int, to out: inout [UInt8]) {
        var divisor: Int64 = 1
        for _ in 1..<digits { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
            rest %= divisor
            divisor /= 10
        }
    }
}
