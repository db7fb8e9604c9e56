import ArgumentParser

/// The `iidbatch` command line.
@main
struct IIDBatch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "iidbatch",
        abstract: "Run the Firebase app-instance server APIs in bulk, driven by Kafka.",
        discussion: """
            Workers consume request records (installation deletions, FCM topic changes, APNs \
            imports, device-group changes) from Kafka, call the backend within its limits, and \
            publish one outcome per request. Start with `iidbatch broker` for a local Kafka.
            """,
        subcommands: [
            Run.self, Control.self, Submit.self, Outcomes.self, Replay.self, Reconcile.self, Demo.self, Broker.self, EmulatorCommand.self, Bench.self,
        ]
    )
}
