import ArgumentParser
import Pipeline

/// `iidbatch control pause`: no new backend calls until `resume`.
struct ControlPause: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause",
        abstract: "Pause a pipeline (or --all): no new backend call; calls in flight finish and publish; partitions stay assigned.",
        discussion: """
            --all pauses every pipeline, also one resumed by its own override (that override is \
            removed). Example: iidbatch control pause --all --reason "Google answers 503s"
            """)

    @OptionGroup var target: ControlTarget

    @OptionGroup var author: ControlAuthor

    @OptionGroup var connection: ControlConnection

    func run() async throws {
        var writer = try await ControlWriter(opening: connection, author: author)
        let scope = try writer.scope(target.scope)
        try await writer.write(scope, writer.overrides(of: scope).merging([.paused: .flag(true)]) { $1 })
        guard target.all else { return }
        // A pipeline's own `paused=false` would beat `*`: take it away, so --all means all.
        for name in writer.board.documents.keys.sorted() where name != scope && writer.overrides(of: name)[.paused] == .flag(false) {
            var overrides = writer.overrides(of: name)
            overrides[.paused] = nil
            try await writer.write(name, overrides)
        }
    }
}
