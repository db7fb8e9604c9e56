/// The byte that separates the fields of a CSV line for `iidbatch submit --csv-delimiter`.
///
/// Excel writes `;` where the decimal separator is a comma (much of Europe), `tab` for "Text
/// (Tab delimited)", and some exports use `|`. The delimiter is one ASCII byte, so a field is cut
/// on that byte only and never inside a UTF-8 character.
public struct CSVDelimiter: Sendable, Hashable, CustomStringConvertible {
    /// The separating byte.
    public let byte: UInt8

    /// `,`, the default (RFC 4180).
    public static let comma = CSVDelimiter(byte: UInt8(ascii: ","))
    /// `;`.
    public static let semicolon = CSVDelimiter(byte: UInt8(ascii: ";"))
    /// A horizontal tab.
    public static let tab = CSVDelimiter(byte: UInt8(ascii: "\t"))
    /// `|`.
    public static let pipe = CSVDelimiter(byte: UInt8(ascii: "|"))

    /// Every delimiter the option accepts, with the names each is given by (the first is how the
    /// option writes it): the one owner of the set, which the parser, the help text and the
    /// wrong-delimiter check read.
    private static let named: [(delimiter: CSVDelimiter, names: [String])] = [
        (.comma, [","]), (.semicolon, [";"]), (.pipe, ["|"]), (.tab, ["tab", "\\t", "\t"]),
    ]

    /// Every delimiter the option accepts.
    public static let all = named.map(\.delimiter)

    /// The names the option takes, for help and error texts: `',', ';', '|' or 'tab' (also
    /// written '\t')`.
    public static let names: String = {
        let primary = named.map { "'\($0.names[0])'" }
        let aliases = named.flatMap { $0.names.dropFirst().filter { $0.allSatisfy { !$0.isWhitespace } } }.map { "'\($0)'" }
        let listed = primary.dropLast().joined(separator: ", ") + " or " + primary[primary.count - 1]
        return aliases.isEmpty ? listed : listed + " (also written \(aliases.joined(separator: ", ")))"
    }()

    private init(byte: UInt8) { self.byte = byte }

    /// The delimiter an option value names: `,` `;` `|`, or `tab`, `\t` (the two characters a
    /// shell passes for `'\t'`) or an actual tab character.
    ///
    /// - Throws: `CSVDelimiterError` naming the value when it is none of these.
    public init(_ name: String) throws(CSVDelimiterError) {
        guard let match = Self.named.first(where: { $0.names.contains(name) }) else { throw CSVDelimiterError(value: name) }
        self = match.delimiter
    }

    /// The delimiter as the option writes it: `,` `;` `|` or `tab`.
    public var description: String { Self.named.first { $0.delimiter == self }?.names[0] ?? String(UnicodeScalar(byte)) }

    /// The delimiter as a message shows it inside quotes: `\t` for a tab, else itself.
    var shown: String { self == .tab ? "\\t" : String(UnicodeScalar(byte)) }

    /// The delimiter as a character, for cutting a line.
    var character: Character { Character(UnicodeScalar(byte)) }
}
