import ArgumentParser

/// `iidbatch bench`: benchmarks that print figures.
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure throughput and print figures (nothing is asserted).",
        subcommands: [BenchKafka.self, BenchEmulator.self, BenchPipeline.self, BenchQuota.self, BenchWorker.self, BenchField.self]
    )
}
