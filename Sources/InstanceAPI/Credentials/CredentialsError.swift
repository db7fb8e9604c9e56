/// Why a service-account key could not be used, or a setting of how credentials are found.
/// Messages name the file and the field, or the variable, never any part of the key.
public enum CredentialsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The key file does not exist.
    case fileNotFound(path: String)
    /// The key file exists but cannot be read.
    case unreadable(path: String, reason: String)
    /// The key file is not a JSON object.
    case invalidJSON(path: String)
    /// A required field is missing, empty or not a string.
    case missingField(path: String, field: String)
    /// `private_key` is not an RSA private key in PEM form.
    case notRSAKey(path: String)
    /// An environment variable that says how credentials are found holds what it cannot be.
    case invalidSetting(variable: String, value: String, reason: String)

    public var description: String {
        switch self {
        case .fileNotFound(let path): "service-account key file \(path) does not exist"
        case .unreadable(let path, let reason): "service-account key file \(path) cannot be read: \(reason)"
        case .invalidJSON(let path): "service-account key file \(path) is not a JSON object"
        case .missingField(let path, let field): "service-account key file \(path) has no string field '\(field)'"
        case .notRSAKey(let path): "service-account key file \(path): 'private_key' is not an RSA private key in PEM form"
        case .invalidSetting(let variable, let value, let reason): "$\(variable) '\(value)': \(reason)"
        }
    }
}
