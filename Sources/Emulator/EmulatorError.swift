/// Errors of the emulator's setup (not of the calls it serves: those are HTTP answers).
public enum EmulatorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A fault setting is out of range; the text names it.
    case invalidFault(String)
    /// A flag could not be parsed; names the flag and the value.
    case invalidOption(option: String, value: String, reason: String)
    /// The server could not start.
    case startFailed(String)
    /// A certificate or key cannot be made, read or used; the text names the file or host.
    case tls(String)

    public var description: String {
        switch self {
        case .invalidFault(let text): "invalid fault: \(text)"
        case .invalidOption(let option, let value, let reason): "invalid \(option) '\(value)': \(reason)"
        case .startFailed(let text): "emulator could not start: \(text)"
        case .tls(let text): "emulator TLS: \(text)"
        }
    }
}
