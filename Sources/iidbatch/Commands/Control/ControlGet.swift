import ArgumentParser
import CommandSupport
import Pipeline

/// `iidbatch control get`: the settings in force and where each comes from.
struct ControlGet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Show the settings each pipeline runs with now, and where each comes from (override, file, default).")

    @Argument(help: "One pipeline (default: every pipeline file's).")
    var pipeline: String?

    @OptionGroup var connection: ControlConnection

    func run() async throws {
        let (topic, pipelines, snapshot) = try await connection.open()
        let shown = pipelines.filter { pipeline == nil || $0.name == pipeline }.sorted { $0.name < $1.name }
        if let pipeline, shown.isEmpty {
            throw ValidationError("unknown pipeline '\(pipeline)'; the pipeline files name \(pipelines.map(\.name).sorted().joined(separator: ", "))")
        }
        Output.line("control topic \(topic.name): \(snapshot.history.count) records")
        for scope in snapshot.board.documents.keys.sorted() {
            guard let document = snapshot.board.documents[scope], pipeline == nil || scope == pipeline || scope == ControlDocument.allPipelines else {
                continue
            }
            Output.line(
                "override \(scope) v\(document.version) by \(document.updatedBy) at \(document.updatedAt.formatted(.iso8601)): \(document.reason)")
        }
        for file in shown {
            let settings = snapshot.board.settings(for: file)
            Output.line("\(file.name): \(settings.paused ? "PAUSED" : "running")")
            for key in ControlKey.allCases.sorted() {
                let setting = settings.settings[key]
                Output.line(
                    "  " + key.rawValue.padded(22) + (setting.map { "\($0.value)" } ?? "none").padded(10)
                        + (setting.map { "\($0.source)" } ?? "no ceiling"))
            }
            for cancel in settings.cancels { Output.line("  \(cancel)") }
        }
    }
}
