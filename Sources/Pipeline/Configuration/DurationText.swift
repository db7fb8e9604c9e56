/// The one way iidbatch reads a length of time written by a person: `250ms`, `2s`, `1.5s`, `5m`,
/// `1h`, `1d` (and, where a caller allows it, a bare number of seconds). Pipeline files and
/// command-line options both use it, so the same text means the same everywhere.
///
/// Never traps: a negative, non-finite or absurd value (longer than `longest`) is refused.
public enum DurationText {
    /// The longest duration accepted: 366 days.
    public static let longest = Duration.seconds(366 * 86_400)

    /// What the accepted forms look like, for error messages.
    public static let examples = "250ms, 2s, 1.5s, 5m, 1h or 1d"

    /// The duration `text` names, or nil when it is not one (or is out of range).
    public static func parse(_ text: String, bareSeconds: Bool = false) -> Duration? {
        let units: [(suffix: String, seconds: Double)] = [("ms", 1e-3), ("s", 1), ("m", 60), ("h", 3_600), ("d", 86_400)]
        var amount: Double?
        var scale = 1.0
        for unit in units where text.hasSuffix(unit.suffix) {
            amount = Double(text.dropLast(unit.suffix.count))
            scale = unit.seconds
            break
        }
        if amount == nil, bareSeconds { amount = Double(text) }
        guard let amount, amount >= 0, amount.isFinite else { return nil }
        let milliseconds = (amount * scale * 1_000).rounded()
        guard milliseconds <= Double(longest.components.seconds) * 1_000 else { return nil }
        return .milliseconds(Int64(milliseconds))
    }

    /// `duration` in the largest unit that writes it exactly (`5m`, `90s`, `250ms`), so that
    /// `parse(format(d)) == d` for every duration `parse` returns.
    public static func format(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1_000 + duration.components.attoseconds / 1_000_000_000_000_000
        for (suffix, size) in [("d", Int64(86_400_000)), ("h", 3_600_000), ("m", 60_000), ("s", 1_000)] where milliseconds >= size && milliseconds % size == 0 {
            return "\(milliseconds / size)\(suffix)"
        }
        return "\(milliseconds)ms"
    }
}
