import ArgumentParser
import CommandSupport
import Pipeline

/// `iidbatch control resume`: undoes `pause`.
struct ControlResume: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Resume a paused pipeline (or --all): the waiting work starts at once, nothing lost or repeated.",
        discussion: """
            A pipeline paused by * is resumed by its own override paused=false; otherwise its \
            pause override is removed. --all removes the pause of *; pipelines paused by their own \
            override stay paused and are named. Example: iidbatch control resume topic-changes \
            --reason "503s over"
            """)

    @OptionGroup var target: ControlTarget

    @OptionGroup var author: ControlAuthor

    @OptionGroup var connection: ControlConnection

    func run() async throws {
        var writer = try await ControlWriter(opening: connection, author: author)
        let scope = try writer.scope(target.scope)
        var overrides = writer.overrides(of: scope)
        let pausedByAll = writer.overrides(of: ControlDocument.allPipelines)[.paused] == .flag(true)
        overrides[.paused] = (scope != ControlDocument.allPipelines && pausedByAll) ? .flag(false) : nil
        try await writer.write(scope, overrides)
        guard target.all else { return }
        let stillPaused = writer.board.documents.keys.sorted().filter { writer.overrides(of: $0)[.paused] == .flag(true) }
        if !stillPaused.isEmpty {
            Output.line("still paused by their own override: \(stillPaused.joined(separator: ", ")) (resume each by name)")
        }
    }
}
