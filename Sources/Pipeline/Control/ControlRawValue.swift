import WireJSON

/// A value as an operator wrote it, before `ControlKey.value(from:)` reads it for a key: a JSON
/// value of a control document, or the text after `=` in `iidbatch control set key=value`.
public enum ControlRawValue: Sendable, Hashable, CustomStringConvertible {
    /// From a control document.
    case json(JSONValue)
    /// From the command line.
    case text(String)

    /// The value as a flag (`true`/`false`), if it is one.
    var flag: Bool? {
        switch self {
        case .json(let value): value.boolValue
        case .text(let text): text == "true" ? true : text == "false" ? false : nil
        }
    }

    /// The value as a number, if it is one.
    var number: Double? {
        switch self {
        case .json(.number(let number)): number
        case .json: nil
        case .text(let text): Double(text)
        }
    }

    /// The value as text, if it is a string.
    var text: String? {
        switch self {
        case .json(let value): value.stringValue
        case .text(let text): text
        }
    }

    /// The value as the error messages show it.
    public var description: String {
        switch self {
        case .json(.string(let text)), .text(let text): "\"\(text.prefix(60))\""
        case .json(.number(let number)): number == number.rounded() && abs(number) < 1e15 ? "\(Int(number))" : "\(number)"
        case .json(.bool(let flag)): "\(flag)"
        case .json(.null): "null"
        case .json(.array): "an array"
        case .json(.object): "an object"
        }
    }
}
