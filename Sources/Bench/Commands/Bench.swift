import ArgumentParser

/// `iidbatch bench`: benchmarks that print figures. The command line lists it among its
/// subcommands; everything it runs lives in this module.
package struct Bench: AsyncParsableCommand {
    /// The group's name, help and subcommands.
    package static let configuration = CommandConfiguration(
        abstract: "Measure throughput and print figures (nothing is asserted).",
        subcommands: [
            BenchKafka.self, BenchEmulator.self, BenchPipeline.self, BenchQuota.self, BenchWorker.self, BenchField.self, BenchSeek.self, BenchClient.self,
        ]
    )

    /// A bench command with no options of its own: it runs one of its subcommands.
    package init() {}
}
