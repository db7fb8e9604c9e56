/// The severity of a librdkafka log line (syslog levels, as librdkafka reports them).
public enum KafkaLogLevel: Int, Sendable, Comparable, CustomStringConvertible {
    case emergency = 0
    case alert, critical, error, warning, notice, info, debug

    /// Maps a syslog level number; anything above 7 is `.debug`.
    public init(syslog: Int) { self = KafkaLogLevel(rawValue: min(max(syslog, 0), 7)) ?? .debug }

    public static func < (lhs: KafkaLogLevel, rhs: KafkaLogLevel) -> Bool { lhs.rawValue > rhs.rawValue }

    public var description: String {
        switch self {
        case .emergency: "emergency"
        case .alert: "alert"
        case .critical: "critical"
        case .error: "error"
        case .warning: "warning"
        case .notice: "notice"
        case .info: "info"
        case .debug: "debug"
        }
    }
}
