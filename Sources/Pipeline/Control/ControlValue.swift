/// A valid value of one `ControlKey`.
public enum ControlValue: Sendable, Hashable, CustomStringConvertible {
    /// `paused`.
    case flag(Bool)
    /// `rate-limit`, calls per second.
    case number(Double)
    /// `concurrency`, `max-in-flight-items`, `retry.max-attempts`.
    case count(Int)
    /// `retry.max-elapsed`.
    case duration(Duration)

    /// The value as a control document holds it.
    var json: Any {
        switch self {
        case .flag(let flag): flag
        case .number(let number): number
        case .count(let count): count
        case .duration(let duration): DurationText.format(duration)
        }
    }

    /// The value as `control get` prints it.
    public var description: String {
        switch self {
        case .flag(let flag): "\(flag)"
        case .number(let number): number == number.rounded() && abs(number) < 1e15 ? "\(Int(number))" : "\(number)"
        case .count(let count): "\(count)"
        case .duration(let duration): DurationText.format(duration)
        }
    }
}
