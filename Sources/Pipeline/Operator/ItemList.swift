import Foundation
import InstanceAPI
import WireJSON

/// Items read from a file for `iidbatch submit`: one per line, or one column of a CSV file.
///
/// Every line is accounted for: it is an item, blank, the CSV header, or bad (with its number and
/// the reason). Nothing is dropped silently.
package struct ItemList: Sendable {
    /// How the input is laid out.
    public enum Format: Sendable, Hashable {
        /// One item per line; surrounding whitespace is trimmed.
        case lines
        /// CSV with a header row; the items are the named column (or the 1-based column number).
        /// Fields are cut on `delimiter` (`,` unless told otherwise; quoting as RFC 4180).
        case csv(column: String, delimiter: CSVDelimiter = .comma)
    }

    /// A line that could not give an item.
    public struct BadLine: Sendable, Hashable, CustomStringConvertible {
        /// 1-based line number in the input.
        public var line: Int
        /// Why.
        public var reason: String
        /// `line 12: …`.
        public var description: String { "line \(line): \(reason)" }
    }

    /// The items, with the line each came from.
    public private(set) var items: [String] = []
    /// Their 1-based line numbers, parallel to `items`.
    public private(set) var lines: [Int] = []
    /// Lines that could not give an item.
    public private(set) var badLines: [BadLine] = []
    /// Empty lines, skipped.
    public private(set) var blankLines = 0
    /// The longest item allowed, in bytes (the backend's limit for tokens).
    public static let maxItemBytes = 4_096

    /// Reads `data` as `format`, checking each item as `op` needs it.
    ///
    /// - Throws: `ItemListError` when the input as a whole cannot be read (not UTF-8, no such
    ///   CSV column); single bad lines are collected in `badLines` instead.
    public init(_ data: Data, format: Format, op: RequestOp) throws(ItemListError) {
        guard String(data: data, encoding: .utf8) != nil else { throw .notUTF8 }
        // A UTF-8 byte order mark (Excel writes one in front of a CSV saved as UTF-8) is not text.
        let data = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data
        var columnIndex: Int?
        // Split on the byte: in a Swift string "\r\n" is one character, not a "\n".
        var rawLines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        if rawLines.last?.isEmpty == true { rawLines.removeLast() }  // the text ends with a newline
        for (offset, rawLine) in rawLines.enumerated() {
            let lineNumber = offset + 1
            let bytes = rawLine.last == UInt8(ascii: "\r") ? rawLine.dropLast() : rawLine
            let line = Substring(String(decoding: bytes, as: UTF8.self))
            // Before anything compares its characters (each comparison of a run of marks costs
            // time quadratic in it).
            if StreamSafeText.exceedsLimit(line.unicodeScalars) {
                if case .csv = format, columnIndex == nil { throw .badHeader(line: lineNumber, reason: StreamSafeText.reason) }
                badLines.append(BadLine(line: lineNumber, reason: StreamSafeText.reason))
                continue
            }
            if line.allSatisfy(\.isWhitespace) {
                blankLines += 1
                continue
            }
            let candidate: Substring
            switch format {
            case .lines:
                candidate = line
            case .csv(let column, let delimiter):
                let fields: [Substring]
                do { fields = try Self.csvFields(line, delimiter: delimiter.character) } catch {
                    // Read past, the header would be the next line, and that line's item lost.
                    if columnIndex == nil { throw .badHeader(line: lineNumber, reason: error.reason) }
                    badLines.append(BadLine(line: lineNumber, reason: error.reason))
                    continue
                }
                guard let index = columnIndex else {
                    // A header read as one column that another delimiter would cut was written
                    // with that one; unless the column asked for is that whole header by name.
                    if fields.count == 1, fields[0].trimmingCharacters(in: .whitespaces) != column,
                        let seen = Self.otherDelimiter(cutting: line, besides: delimiter)
                    {
                        throw .wrongDelimiter(header: String(line), used: delimiter, seen: seen)
                    }
                    columnIndex = try Self.column(column, header: fields)
                    continue
                }
                guard index < fields.count else {
                    badLines.append(BadLine(line: lineNumber, reason: "has \(fields.count) columns, the item is in column \(index + 1)"))
                    continue
                }
                candidate = fields[index]
            }
            let item = candidate.trimmingCharacters(in: .whitespaces)
            if let problem = Self.problem(with: item, op: op) {
                badLines.append(BadLine(line: lineNumber, reason: problem))
            } else {
                items.append(item)
                lines.append(lineNumber)
            }
        }
        if items.isEmpty, badLines.isEmpty { throw .noItems }
    }

    /// Why `item` cannot be an item of `op`, or nil.
    public static func problem(with item: String, op: RequestOp) -> String? {
        let shown = "'\(item.prefix(40))\(item.count > 40 ? "…" : "")'"
        if item.isEmpty { return "empty item" }
        if item.utf8.count > maxItemBytes { return "item of \(item.utf8.count) bytes is longer than \(maxItemBytes)" }
        // A group export's items may be names, which users choose.
        if let problem = APILimits.identifierProblem(item, isName: op == .groupsExport) { return "\(shown) \(problem)" }
        if op == .apnsImport,
            !(item.utf8.count % 2 == 0
                && item.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0 | 0x20) })
        {
            return "\(shown) is not an APNs device token (an even number of hex digits)"
        }
        return nil
    }

    /// The first accepted delimiter other than `used` that cuts `header` (outside quotes) into
    /// more than one field, or nil.
    private static func otherDelimiter(cutting header: Substring, besides used: CSVDelimiter) -> CSVDelimiter? {
        CSVDelimiter.all.first { other in
            other != used && ((try? csvFields(header, delimiter: other.character))?.count ?? 0) > 1
        }
    }

    private static func column(_ name: String, header: [Substring]) throws(ItemListError) -> Int {
        if let number = Int(name) {
            guard number >= 1, number <= header.count else { throw .noSuchColumn(name, header: header.map(String.init)) }
            return number - 1
        }
        guard let index = header.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == name }) else {
            throw .noSuchColumn(name, header: header.map(String.init))
        }
        return index
    }

    /// The fields of one CSV line cut on `delimiter` (RFC 4180 quoting; a quoted field may not
    /// span lines). Cut on Unicode scalars, as every CSV reader and writer (the batch receipt's
    /// included) does: a quote or delimiter with a combining mark after it is one Swift
    /// `Character`, yet a quote or a delimiter to them.
    private static func csvFields(_ line: Substring, delimiter: Character) throws(CSVLineError) -> [Substring] {
        let scalars = line.unicodeScalars
        let quote: Unicode.Scalar = "\""
        // Every accepted delimiter (`CSVDelimiter`) is one scalar.
        let cut = delimiter.unicodeScalars.first ?? ","
        var fields: [Substring] = []
        var index = scalars.startIndex
        while true {
            if index < scalars.endIndex, scalars[index] == quote {
                var value = String.UnicodeScalarView()
                var next = scalars.index(after: index)
                var closed = false
                while next < scalars.endIndex {
                    let scalar = scalars[next]
                    next = scalars.index(after: next)
                    guard scalar == quote else {
                        value.append(scalar)
                        continue
                    }
                    if next < scalars.endIndex, scalars[next] == quote {
                        value.append(quote)
                        next = scalars.index(after: next)
                        continue
                    }
                    closed = true
                    break
                }
                guard closed else { throw CSVLineError(reason: "unterminated quoted field") }
                fields.append(Substring(String(value)))
                if next == scalars.endIndex { return fields }
                guard scalars[next] == cut else { throw CSVLineError(reason: "text after a closing quote") }
                index = scalars.index(after: next)
            } else if let separator = scalars[index...].firstIndex(of: cut) {
                fields.append(Substring(scalars[index..<separator]))
                index = scalars.index(after: separator)
            } else {
                fields.append(Substring(scalars[index...]))
                return fields
            }
        }
    }

    private struct CSVLineError: Error {
        var reason: String
    }
}
