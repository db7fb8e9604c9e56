/// Where a librdkafka property was set, ranked: a property set at a higher layer wins over the
/// same property set at a lower one, whatever order they were applied in.
///
/// Lowest first: built-in defaults, a properties file (kcat's `-F`), the environment
/// (`IIDBATCH_KAFKA_*`), command-line assignments (`-X key=value`), and last the brokers given
/// on their own (`--brokers`, `$IIDBATCH_BROKERS`), which set `bootstrap.servers` over all.
public enum KafkaSettingLayer: Int, Sendable, Comparable, CaseIterable {
    /// A value the program starts with when nobody set one.
    case builtInDefault
    /// A line of a properties file.
    case file
    /// An environment variable.
    case environment
    /// A `key=value` assignment on the command line.
    case assignment
    /// The bootstrap servers given by their own option or variable.
    case brokers

    /// Ranks by precedence: `lhs` is below `rhs` when a setting at `rhs` replaces one at `lhs`.
    public static func < (lhs: KafkaSettingLayer, rhs: KafkaSettingLayer) -> Bool { lhs.rawValue < rhs.rawValue }
}
