import Foundation

/// Parses HTTP `Retry-After` values: delay-seconds or an HTTP date.
package enum RetryAfter {
    /// The longest delay `parse` returns: a server asking for more (a year, Int.max seconds, a
    /// date in the year 9999) gets this, and callers hold it to their own, shorter, bounds.
    public static let longest = Duration.seconds(86_400)

    /// The delay a `Retry-After` header asks for, measured from `now`, at most `longest`; nil when
    /// unparseable. A date in the past means "now" (zero).
    public static func parse(_ value: String, now: Date = Date()) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(text), seconds >= 0 { return min(.seconds(seconds), longest) }
        for format in formats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) {
                let delay = min(max(0, date.timeIntervalSince(now)), Double(longest.components.seconds))
                return .milliseconds(Int64((delay * 1000).rounded()))
            }
        }
        return nil
    }

    /// Formats `date` as an IMF-fixdate, the form servers should send.
    public static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = formats[0]
        return formatter.string(from: date)
    }

    /// IMF-fixdate, RFC 850 and asctime, the three forms HTTP/1.1 allows.
    private static let formats = ["EEE, dd MMM yyyy HH:mm:ss 'GMT'", "EEEE, dd-MMM-yy HH:mm:ss 'GMT'", "EEE MMM d HH:mm:ss yyyy"]
}
