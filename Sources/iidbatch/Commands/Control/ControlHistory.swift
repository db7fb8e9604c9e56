import ArgumentParser
import CommandSupport
import Pipeline

/// `iidbatch control history`: every version the control topic holds.
struct ControlHistory: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List every version in the control topic, oldest first: who, when, why, what (refused records with their reason).",
        discussion: "Compaction keeps only the latest record per scope once the broker has compacted the topic.")

    @Argument(help: "Only this scope (a pipeline's name, or *).")
    var pipeline: String?

    @OptionGroup var connection: ControlConnection

    func run() async throws {
        let (topic, _, snapshot) = try await connection.open()
        let entries = snapshot.history.filter { pipeline == nil || $0.change.scope == pipeline }
        Output.line("control topic \(topic.name): \(entries.count) records")
        for entry in entries {
            Output.line("offset \(entry.offset)  \(entry.timestamp.map { $0.formatted(.iso8601) } ?? "-")  \(entry.change)")
        }
    }
}
