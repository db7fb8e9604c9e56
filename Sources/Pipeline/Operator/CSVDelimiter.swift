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

    /// The names the option takes, for help and error texts.
    public static let names = "',', ';', '|' or 'tab' (also written '\\t')"

    private init(byte: UInt8) { self.byte = byte }

    /// The delimiter an option value names: `,` `;` `|`, or `tab`, `\t` (the two characters a
    /// shell passes for `'\t'`) or an actual tab character.
    ///
    /// - Throws: `CSVDelimiterError` naming the value when it is none of these.
    public init(_ name: String) throws(CSVDelimiterError) {
        switch name {
        case ",": self = .comma
        case ";": self = .semicolon
        case "|": self = .pipe
        case "tab", "\\t", "\t": self = .tab
        default: throw CSVDelimiterError(value: name)
        }
    }

    /// The delimiter as the option writes it: `,` `;` `|` or `tab`.
    public var description: String { self == .tab ? "tab" : String(UnicodeScalar(byte)) }

    /// The delimiter as a character, for cutting a line.
    var character: Character { Character(UnicodeScalar(byte)) }
}
