/// Why a service-account key could not be used. Messages name the file and the field, never
/// any part of the key.
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

    public var description: String {
        switch self {
        case let .fileNotFound(path): "service-account key file \(path) does not exist"
        case let .unreadable(path, reason): "service-account key file \(path) cannot be read: \(reason)"
        case let .invalidJSON(path): "service-account key file \(path) is not a JSON object"
        case let .missingField(path, field): "service-account key file \(path) has no string field '\(field)'"
        case let .notRSAKey(path): "service-account key file \(path): 'private_key' is not an RSA private key in PEM form"
        }
    }
}
