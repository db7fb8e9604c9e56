/// One librdkafka property's value, with the layer that set it and where, in words.
public struct KafkaSetting: Sendable, Equatable {
    /// The value, as librdkafka receives it.
    public var value: String
    /// The layer that set it; a higher one replaces it.
    public var layer: KafkaSettingLayer
    /// Where it came from, for people (`kafka.properties line 3`, `$IIDBATCH_KAFKA_SASL_PASSWORD`,
    /// `-X`); never the value.
    public var origin: String

    /// A setting.
    public init(value: String, layer: KafkaSettingLayer, origin: String) {
        self.value = value
        self.layer = layer
        self.origin = origin
    }
}
