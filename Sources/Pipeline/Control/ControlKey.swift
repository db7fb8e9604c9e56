/// A pipeline setting an operator may override live through the control topic, named as the
/// control documents and `iidbatch control` write it, with the values it admits.
///
/// The ranges are the pipeline files' own (`PipelineFile` reads the same keys with them), so a
/// value a file may hold is a value an override may hold, and the other way round.
public enum ControlKey: String, Sendable, Hashable, CaseIterable, Comparable {
    /// Stop starting calls (in-flight calls finish; partitions are paused, the group kept).
    case paused
    /// The adaptive rate's ceiling per API, calls per second.
    case rateLimit = "rate-limit"
    /// Calls in flight at once.
    case concurrency
    /// Items held in flight before partitions are paused.
    case maxInFlightItems = "max-in-flight-items"
    /// Attempts per item (the retry budget).
    case retryMaxAttempts = "retry.max-attempts"
    /// How long an item's retries may go on (the retry budget).
    case retryMaxElapsed = "retry.max-elapsed"

    /// `rate-limit`'s range, calls per second.
    public static let rateLimitRange = 0.01...1_000_000.0
    /// `concurrency`'s range.
    public static let concurrencyRange = 1...1_024
    /// `max-in-flight-items`' range.
    public static let maxInFlightItemsRange = 1...10_000_000
    /// `retry.max-attempts`' range.
    public static let retryMaxAttemptsRange = 1...100

    /// Reads `value` (a JSON value of a control document, or the text of `control set k=v`) for
    /// this key.
    ///
    /// - Throws: `ControlError.badValue` naming the key, the value and what it admits.
    public func value(from raw: ControlRawValue) throws(ControlError) -> ControlValue {
        switch self {
        case .paused:
            guard let flag = raw.flag else { throw .badValue(key: rawValue, value: raw.description, expected: "true or false") }
            return .flag(flag)
        case .rateLimit:
            guard let number = raw.number, number.isFinite, Self.rateLimitRange.contains(number) else {
                throw .badValue(key: rawValue, value: raw.description, expected: "a number of calls per second in 0.01...1000000")
            }
            return .number(number)
        case .concurrency, .maxInFlightItems, .retryMaxAttempts:
            let range = integerRange
            guard let number = raw.number, number == number.rounded(), number >= Double(range.lowerBound), number <= Double(range.upperBound) else {
                throw .badValue(key: rawValue, value: raw.description, expected: "an integer in \(range.lowerBound)...\(range.upperBound)")
            }
            return .count(Int(number))
        case .retryMaxElapsed:
            guard let text = raw.text, let duration = DurationText.parse(text), duration > .zero else {
                throw .badValue(key: rawValue, value: raw.description, expected: "a duration such as \(DurationText.examples)")
            }
            return .duration(duration)
        }
    }

    private var integerRange: ClosedRange<Int> {
        switch self {
        case .concurrency: Self.concurrencyRange
        case .maxInFlightItems: Self.maxInFlightItemsRange
        default: Self.retryMaxAttemptsRange
        }
    }

    /// Every key, as the wire spells them, for error messages.
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }

    public static func < (lhs: ControlKey, rhs: ControlKey) -> Bool { lhs.rawValue < rhs.rawValue }
}
