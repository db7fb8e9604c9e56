import ArgumentParser
import Pipeline

/// `iidbatch control set`: overrides settings of one pipeline (or `*`).
struct ControlSet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Override settings of a pipeline (or * for all): key=value, validated before anything is written.",
        discussion: """
            Keys: \(ControlKey.names). The new version keeps the scope's other overrides. \
            Example: iidbatch control set topic-changes rate-limit=5 --reason "quota needed by checkout"
            """)

    @Argument(help: "The pipeline (its file's `name`), or * for every pipeline.")
    var pipeline: String

    @Argument(help: ArgumentHelp("The settings, as key=value.", valueName: "key=value"))
    var assignments: [String]

    @OptionGroup var author: ControlAuthor

    @OptionGroup var connection: ControlConnection

    func validate() throws {
        guard !assignments.isEmpty else { throw ValidationError("give at least one key=value; the keys are \(ControlKey.names)") }
        _ = try parsed()
    }

    /// The assignments read for their keys, or a usage error naming the one at fault.
    private func parsed() throws -> [ControlKey: ControlValue] {
        var overrides: [ControlKey: ControlValue] = [:]
        for assignment in assignments {
            guard let equals = assignment.firstIndex(of: "=") else { throw ValidationError("'\(assignment)' is not key=value") }
            let name = String(assignment[..<equals])
            guard let key = ControlKey(rawValue: name) else { throw ValidationError("\(ControlError.unknownKey(name))") }
            do { overrides[key] = try key.value(from: .text(String(assignment[assignment.index(after: equals)...]))) } catch {
                throw ValidationError("\(error)")
            }
        }
        return overrides
    }

    func run() async throws {
        let changes = try parsed()
        var writer = try await ControlWriter(opening: connection, author: author)
        let scope = try writer.scope(pipeline)
        try await writer.write(scope, writer.overrides(of: scope).merging(changes) { $1 })
    }
}
