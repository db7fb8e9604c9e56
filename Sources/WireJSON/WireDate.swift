#if canImport(FoundationEssentials)
    import FoundationEssentials  // Date, and its ISO 8601 reader for other offsets
#else
    import Foundation
#endif

/// The one time format of the pipeline's records: ISO 8601 in UTC with milliseconds,
/// `2026-11-23T10:00:00.125Z`, computed without a formatter or a calendar, since every outcome
/// carries at least two.
///
/// A time read back writes the same text (`text(parse(t)) == t` for every millisecond), which
/// Foundation's formatter does not promise: a parsed `.658` is a double just below it, which it
/// truncates to `.657`. So milliseconds are truncated, as Foundation writes them, except that an
/// instant within a microsecond below the next millisecond (below a `Date`'s own precision there)
/// counts as that millisecond.
package enum WireDate {
    /// The first instant the format holds, 0000-01-01T00:00:00.000Z, in seconds since 1970.
    static let earliest: Double = -62_167_219_200
    /// The last whole second the format holds, 9999-12-31T23:59:59.000Z, in seconds since 1970
    /// (that far out a double no longer tells milliseconds apart).
    static let latest: Double = 253_402_300_799

    /// `date`'s text, as ASCII bytes. A time before year 0 or after 9999 (or not a number) is
    /// written as the nearest end of the format: four digits of year hold no other.
    package static func bytes(_ date: Date) -> [UInt8] {
        // Whole seconds first (their fraction is exact), then the fraction's milliseconds.
        let given = date.timeIntervalSince1970
        let interval = given.isNaN ? earliest : min(max(given, earliest), latest)
        let seconds = interval.rounded(.down)
        let milliseconds = Int64(seconds) * 1_000 + Int64(((interval - seconds) * 1_000 + 0.001).rounded(.down))
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
    package static func text(_ date: Date) -> String { String(decoding: bytes(date), as: UTF8.self) }

    /// Reads a time written in ISO 8601, with or without fractional seconds. Times in this
    /// format are read exactly (to the double nearest their millisecond) and strictly: a month,
    /// day or hour out of range is nil, not rolled over into the next.
    package static func parse(_ text: String) -> Date? {
        if isWireShaped(text) { return millisecondsSinceEpoch(text).map { Date(timeIntervalSince1970: Double($0) / 1_000) } }
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
        return try? Date(text, strategy: .iso8601)
    }

    /// Whether `text` has this format's length and punctuation.
    private static func isWireShaped(_ text: String) -> Bool {
        let bytes = text.utf8.span
        return bytes.count == 24 && bytes[4] == UInt8(ascii: "-") && bytes[7] == UInt8(ascii: "-") && bytes[10] == UInt8(ascii: "T")
            && bytes[13] == UInt8(ascii: ":") && bytes[16] == UInt8(ascii: ":") && bytes[19] == UInt8(ascii: ".") && bytes[23] == UInt8(ascii: "Z")
    }

    /// The milliseconds since 1970 of a wire-shaped time, or nil if it is not a valid one.
    private static func millisecondsSinceEpoch(_ text: String) -> Int64? {
        let bytes = text.utf8.span
        guard let year = number(bytes, 0..<4), let month = number(bytes, 5..<7), let day = number(bytes, 8..<10),
            let hour = number(bytes, 11..<13), let minute = number(bytes, 14..<16), let second = number(bytes, 17..<19),
            let millisecond = number(bytes, 20..<23),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60, second < 60
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        return ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1_000 + millisecond
    }

    /// The decimal number in `bytes[range]`, or nil if any of them is not a digit.
    private static func number(_ bytes: Span<UInt8>, _ range: Range<Int>) -> Int64? {
        var value: Int64 = 0
        for index in range {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value * 10 + Int64(digit)
        }
        return value
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// The day counted from 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
    /// days-from-civil algorithm).
    private static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
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
