extension Duration {
    /// Whole milliseconds, clamped to librdkafka's `int` timeouts.
    var rdKafkaMilliseconds: Int32 {
        Int32(clamping: components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000)
    }
}
