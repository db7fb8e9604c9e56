/// Why an item file cannot be read at all.
public enum ItemListError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bytes are not UTF-8 text.
    case notUTF8
    /// The CSV header has no such column.
    case noSuchColumn(String, header: [String])
    /// The input holds no item at all: it is empty, or every line is blank (or only a CSV header).
    case noItems

    public var description: String {
        switch self {
        case .notUTF8: "the input is not UTF-8 text"
        case .noSuchColumn(let name, let header): "no column '\(name)' in the CSV header (\(header.joined(separator: ",")))" + Self.delimiterHint(header)
        case .noItems: "no items: the input is empty or every line is blank"
        }
    }

    /// A header read as one column that holds another delimiter was most likely cut on the wrong
    /// one (Excel writes `;` in many locales): names the option and the delimiter seen.
    private static func delimiterHint(_ header: [String]) -> String {
        guard header.count == 1,
            let seen = [CSVDelimiter.semicolon, .tab, .pipe, .comma].first(where: { header[0].utf8.contains($0.byte) })
        else { return "" }
        return "; the header is one column holding '\(seen == .tab ? "\\t" : seen.description)': try --csv-delimiter '\(seen)'"
    }
}
