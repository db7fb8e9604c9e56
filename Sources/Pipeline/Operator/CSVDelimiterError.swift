/// A `--csv-delimiter` value that names no delimiter iidbatch reads.
public struct CSVDelimiterError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The value as given.
    public var value: String

    /// The error for `value`.
    public init(value: String) { self.value = value }

    /// `'x' is not a CSV delimiter; use ',', ';', '|' or 'tab' (also written '\t')`, the value
    /// quoted with its control characters escaped so that a stray tab or newline shows.
    public var description: String {
        let shown = value.unicodeScalars.map { $0.properties.generalCategory == .control ? $0.escaped(asASCII: true) : String($0) }.joined()
        return "'\(shown)' is not a CSV delimiter; use \(CSVDelimiter.names)"
    }
}
