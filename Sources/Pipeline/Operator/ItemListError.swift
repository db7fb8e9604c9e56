/// Why an item file cannot be read at all.
public enum ItemListError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bytes are not UTF-8 text.
    case notUTF8
    /// The CSV header has no such column.
    case noSuchColumn(String, header: [String])
    /// The CSV header, cut on `used`, is one field that `seen` (another accepted delimiter)
    /// cuts: the file was most likely written with `seen` (Excel writes `;` in many locales),
    /// and every line would be read as one garbage item.
    case wrongDelimiter(header: String, used: CSVDelimiter, seen: CSVDelimiter)
    /// The CSV header (the first line that is not blank) cannot be read as CSV: the next line
    /// would be taken for it, and its item lost without a trace.
    case badHeader(line: Int, reason: String)
    /// The input holds no item at all: it is empty, or every line is blank (or only a CSV header).
    case noItems

    public var description: String {
        switch self {
        case .notUTF8: "the input is not UTF-8 text"
        case .noSuchColumn(let name, let header): "no column '\(name)' in the CSV header (\(header.joined(separator: ",")))"
        case .wrongDelimiter(let header, let used, let seen):
            "the CSV header (\(header)) is one column cut on '\(used.shown)' but holds '\(seen.shown)': try --csv-delimiter '\(seen)'"
        case .badHeader(let line, let reason): "the CSV header (line \(line)) cannot be read: \(reason)"
        case .noItems: "no items: the input is empty or every line is blank"
        }
    }
}
