/// A librdkafka properties file, as kcat's `-F` reads it: one `key=value` per line.
///
/// ```
/// # SASL over TLS
/// bootstrap.servers=broker-1:9093,broker-2:9093
/// security.protocol=SASL_SSL
/// sasl.mechanism=SCRAM-SHA-512
/// sasl.username=iidbatch
/// sasl.password=s3cr3t=with=equals
/// ```
///
/// A line is split at its first `=`: the key and the value are trimmed of surrounding whitespace
/// (a value keeps every `=` after the first, and inner spaces). Blank lines and lines whose first
/// non-blank character is `#` are skipped; there is no continuation or escaping. A later line
/// for the same key wins. A line that is not `key=value` fails with the file and line number,
/// never the line's text, which may hold a secret.
public enum KafkaPropertiesFile {
    /// One `key=value` line.
    public struct Line: Sendable, Equatable {
        /// The property name.
        public var key: String
        /// Its value.
        public var value: String
        /// The line's number, from 1.
        public var number: Int

        /// A line.
        public init(key: String, value: String, number: Int) {
            self.key = key
            self.value = value
            self.number = number
        }
    }

    /// The assignments of `text`, in file order; `file` names it in errors.
    ///
    /// - Throws: `KafkaError.malformedPropertiesFile` for a line without `=` or with an empty key.
    public static func parse(_ text: String, file: String) throws(KafkaError) -> [Line] {
        var lines: [Line] = []
        var number = 0
        // A CRLF line end is one Character, a newline like \n.
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            number += 1
            var line = raw.trimmingWhitespace()
            if number == 1, line.first == "\u{FEFF}" { line = String(line.dropFirst()).trimmingWhitespace() }
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw .malformedPropertiesFile(file: file, line: number, reason: "expected key=value")
            }
            let key = line[..<equals].trimmingWhitespace()
            guard !key.isEmpty else { throw .malformedPropertiesFile(file: file, line: number, reason: "the key before = is empty") }
            lines.append(Line(key: key, value: line[line.index(after: equals)...].trimmingWhitespace(), number: number))
        }
        return lines
    }
}
