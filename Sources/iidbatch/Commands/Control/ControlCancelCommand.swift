import ArgumentParser
import CommandSupport
import Foundation
import Pipeline

/// `iidbatch control cancel`: ends a pipeline's matching requests as `cancelled` before they call
/// the backend.
struct ControlCancelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Cancel a pipeline's work: matching requests that have not started a backend call end `cancelled`, never calling it.",
        discussion: """
            A request matches when, for each option given, its batch is --batch, its id is \
            --request-id, and its record was produced before --produced-before; give at least one. \
            A --batch cancel without --produced-before matches whenever the record was produced: \
            a batch cancelled while its submit still runs, or produced on a host whose clock is \
            ahead, stays cancelled whole (to run such work after all, submit it under a new batch \
            name). A --request-id cancel without --batch is bounded at now by default, so the \
            same id submitted again later runs. \
            Workers settle the requests they hold that have not started a \
            backend call, and every matching record they read later, with a `cancelled` outcome \
            (no dead letter), and move their offsets on; a request that has started a call \
            finishes whole (its other items and retries too) and is reported as answered. A \
            request another worker started before it died or lost the partition is not known \
            to have started, and ends cancelled though its call may have been made. A batch \
            whose records are on topics this pipeline does not read is refused; one the batch topic does not \
            have is warned of. Work produced after a bound is never cancelled. The cancel is \
            a record of its own in the compacted control topic: it holds across restarts and \
            rebalances, and `control history` lists it. Cancelling is not undone by `resume` or \
            `reset`. Example: iidbatch control cancel deletions --batch gdpr-7 --reason "wrong subject list"
            """)

    @Argument(help: "The pipeline (its file's `name`).")
    var pipeline: String

    @Option(help: ArgumentHelp("Only requests of this batch.", valueName: "name"))
    var batch: String?

    @Option(help: ArgumentHelp("Only the request of this id.", valueName: "id"))
    var requestId: String?

    @Option(
        help: ArgumentHelp(
            "Only records produced before TIME (ISO 8601, or an age: 15m); default: whenever produced with --batch, now without.", valueName: "time"))
    var producedBefore: TimeArgument?

    @OptionGroup var author: ControlAuthor

    @OptionGroup var connection: ControlConnection

    @OptionGroup var batches: BatchOptions

    func validate() throws {
        guard batch != nil || requestId != nil || producedBefore != nil else {
            throw ValidationError("say what to cancel: --batch NAME, --request-id ID or --produced-before TIME (or several)")
        }
        if let batch, let problem = BatchName.problem(with: batch) { throw ValidationError("--batch '\(batch)' \(problem)") }
        if let requestId, requestId.isEmpty || requestId.utf8.count > RequestID.maxBytes {
            throw ValidationError("--request-id must take 1 to \(RequestID.maxBytes) bytes, got \(requestId.utf8.count)")
        }
    }

    func run() async throws {
        var writer = try await ControlWriter(opening: connection, author: author)
        guard pipeline != ControlDocument.allPipelines else { throw ValidationError("a cancel names one pipeline, not *") }
        let name = try writer.scope(pipeline)
        if let batch { try await check(batch, of: name, pipelines: writer.pipelines) }
        let now = Date()
        let cancel = ControlCancel(
            pipeline: name, batch: batch, requestID: requestId, producedBefore: producedBefore?.date ?? (batch == nil ? now : nil),
            version: writer.board.nextCancelVersion(of: name), updatedAt: now, updatedBy: author.by, reason: author.reason,
            tag: "\(Int64(now.timeIntervalSince1970 * 1000))-\(UInt32.random(in: 0...UInt32.max))")
        try await writer.write(cancel)
    }

    /// Refuses a cancel of `batch` in `pipeline` when the batch's records (its manifest's request
    /// topics) are on topics that pipeline's workers do not read: the cancel would reach none of
    /// them. Warns when the batch topic has no batch of that name (a typo matches nothing,
    /// silently). The manifest's `pipeline` is the submitter's word; the topics decide.
    ///
    /// - Throws: `RuntimeError` `.usage` naming the topics and the pipelines that read them.
    private func check(_ batch: String, of pipeline: String, pipelines: [PipelineConfiguration]) async throws {
        let manifests: [String: BatchManifest]
        do { manifests = try await batches.manifests(connection.kafka) } catch {
            Output.error("warning: cannot read the batch topic \(batches.batchTopic) (\(error)): the batch name \(batch) is not checked")
            return
        }
        guard let manifest = manifests[batch] else {
            Output.error(
                "warning: no batch \(batch) in \(batches.batchTopic): this cancel matches only records that carry that batch name; `iidbatch batches` lists the batches"
            )
            return
        }
        guard let reads = pipelines.first(where: { $0.name == pipeline })?.requestTopic, !manifest.requestTopics.contains(reads) else { return }
        let readers = pipelines.filter { manifest.requestTopics.contains($0.requestTopic) }.map(\.name)
        throw RuntimeError(
            .usage,
            "--batch: batch \(batch)'s records are on \(manifest.requestTopics.joined(separator: ", ")), which pipeline \(pipeline) does not read (it reads \(reads)): the cancel would reach none of them"
                + (readers.isEmpty ? "" : "; cancel it in \(readers.joined(separator: ", ")): iidbatch control cancel \(readers[0]) --batch \(batch)")
        )
    }
}
