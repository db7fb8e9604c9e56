import ArgumentParser
import CommandSupport
import Pipeline

/// `iidbatch control reset`: a pipeline (or every scope) back to its files.
struct ControlReset: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Remove every override of a pipeline (or --all: of every scope, * included): back to the pipeline files.",
        discussion: """
            Writes a tombstone per scope, carrying --by and --reason in its headers. Example: \
            iidbatch control reset topic-changes --reason "incident closed"
            """)

    @OptionGroup var target: ControlTarget

    @OptionGroup var author: ControlAuthor

    @OptionGroup var connection: ControlConnection

    func run() async throws {
        var writer = try await ControlWriter(opening: connection, author: author)
        let scopes = target.all ? writer.board.documents.keys.sorted() : [try writer.scope(target.scope)]
        if scopes.isEmpty { Output.line("no overrides in force; nothing written") }
        for scope in scopes { try await writer.reset(scope) }
    }
}
