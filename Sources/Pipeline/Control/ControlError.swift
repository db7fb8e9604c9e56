/// Why a control document or an override was refused: each case names the key and the value.
public enum ControlError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The record is not a JSON object with the document's fields.
    case malformed(String)
    /// An override names no known setting.
    case unknownKey(String)
    /// An override's value is of the wrong type or out of range.
    case badValue(key: String, value: String, expected: String)

    public var description: String {
        switch self {
        case .malformed(let reason): "not a control document: \(reason)"
        case .unknownKey(let key): "unknown setting '\(key)'; the settings are \(ControlKey.names)"
        case .badValue(let key, let value, let expected): "\(key): \(value) is not \(expected)"
        }
    }
}
