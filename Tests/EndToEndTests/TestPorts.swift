/// The loopback port ranges the suites draw fixed ports from, one range per suite and no two
/// overlapping, since suites run side by side; all below Linux's ephemeral range (32768+), where
/// no client socket or mock broker takes one. KafkaTests' EmbeddedKafkaTests, another target,
/// draws from 29000..<32000, which none of these overlaps.
enum TestPorts {
    /// RunMetricsTests' `run --http-port`.
    static let runMetrics = 10_000..<11_000
    /// AlertRulesTests' `run --http-port`.
    static let alertRules = 11_000..<12_000
    /// EmulatorCommandTests' `emulator --port`.
    static let emulator = 12_000..<13_000
    /// ReadmeQuickStartTests' Kafka and emulator ports.
    static let readmeQuickStart = 13_000..<14_000
    /// ReadmePlaybookTests' Kafka and emulator ports.
    static let readmePlaybook = 14_000..<18_000
    /// ReadmeWalkthroughTests' Kafka and emulator ports.
    static let readmeWalkthrough = 18_000..<22_000
    /// ReadmeControlTests' Kafka and emulator ports.
    static let readmeControl = 22_000..<26_000
    /// BrokerCommandTests' `broker --port`.
    static let broker = 26_000..<29_000
    /// EmbeddedKafkaTests' range (in KafkaTests, which cannot read this type; kept here to be
    /// checked against the others).
    static let embeddedKafka = 29_000..<32_000

    /// Every range, by the suite that draws from it.
    static let all: [String: Range<Int>] = [
        "RunMetricsTests": runMetrics, "AlertRulesTests": alertRules, "EmulatorCommandTests": emulator,
        "ReadmeQuickStartTests": readmeQuickStart, "ReadmePlaybookTests": readmePlaybook,
        "ReadmeWalkthroughTests": readmeWalkthrough, "ReadmeControlTests": readmeControl,
        "BrokerCommandTests": broker, "EmbeddedKafkaTests": embeddedKafka,
    ]
}
