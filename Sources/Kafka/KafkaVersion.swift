/// The librdkafka this module runs on.
public enum KafkaVersion {
    /// librdkafka's version string, for example `2.0.2`.
    public static var librdkafka: String { RDKafkaVersion.string }
}
