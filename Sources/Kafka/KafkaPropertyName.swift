/// The one name each librdkafka property is recorded under.
///
/// librdkafka accepts several names for some properties (CONFIGURATION.md's "Alias for …"):
/// `metadata.broker.list` and `bootstrap.servers` set one property, and whichever it is given
/// last wins. Recorded under one name, a property set at two layers under two names is one
/// setting whose precedence `KafkaSettings` decides, and a default never overrides a caller's
/// value given under the other name (`KafkaConfiguration.withDefaults`).
public enum KafkaPropertyName {
    /// Each alias of librdkafka (2.x) and the name it is recorded under: the name this program's
    /// code and documentation use where they use one (`bootstrap.servers`, `linger.ms`, `acks`,
    /// `message.timeout.ms`), else librdkafka's own.
    public static let aliases: [String: String] = [
        "metadata.broker.list": "bootstrap.servers",
        "queue.buffering.max.ms": "linger.ms",
        "request.required.acks": "acks",
        "delivery.timeout.ms": "message.timeout.ms",
        "sasl.mechanism": "sasl.mechanisms",
        "max.in.flight": "max.in.flight.requests.per.connection",
        "max.partition.fetch.bytes": "fetch.message.max.bytes",
        "retries": "message.send.max.retries",
        "compression.type": "compression.codec",
    ]

    /// The name `property` is recorded under: its target when it is an alias, else itself.
    public static func canonical(_ property: String) -> String {
        aliases[property] ?? property
    }
}
