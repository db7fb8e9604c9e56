import ArgumentParser
import CommandSupport
import Foundation
import Pipeline
import WireJSON

/// `iidbatch batches` (`list`): every batch with its state and progress.
struct BatchesList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the batches: state, requests and items done / total, items/s over the last minute, ETA.",
        discussion: """
            Reads the batch topic, then the outcome topics from the oldest batch's creation, and \
            the control topic for cancels and pauses. --json prints one JSON object per batch \
            (secondsLeft null when there is no rate to go by).
            """)

    @Flag(help: "Print one JSON object per batch, per line.")
    var json = false

    @OptionGroup var sources: BatchSources

    func run() async throws {
        let manifests = try await sources.manifests().values.sorted { ($0.createdAt, $0.name) < ($1.createdAt, $1.name) }
        guard let since = manifests.map(\.outcomesSince).min() else {
            if !json { Output.line("no batches in \(sources.batches.batchTopic)") }
            return
        }
        var progress = Dictionary(uniqueKeysWithValues: manifests.map { ($0.name, BatchProgress(manifest: $0)) })
        try await sources.readOutcomes(try sources.outcomeTopics(for: manifests), since: since) { _, outcome in
            if let batch = outcome.batch { progress[batch]?.read(outcome) }
            return true
        }
        let board = await sources.board()
        let readers = sources.readers
        let now = Date()
        if !json { Output.line(BatchProgressText.header) }
        for manifest in manifests {
            guard let batch = progress[manifest.name] else { continue }
            let state = batch.state(cancels: BatchSources.cancels(of: manifest, on: board, readers: readers), paused: BatchSources.paused(manifest, on: board))
            Output.line(json ? Self.json(batch, state, at: now) : BatchProgressText.row(batch, state, at: now))
        }
    }

    /// One batch as a JSON object, members in sorted order.
    static func json(_ progress: BatchProgress, _ state: BatchState, at now: Date) -> String {
        let manifest = progress.manifest
        var secondsLeft: Any = NSNull()
        if state == .done {
            secondsLeft = 0
        } else if state == .running || state == .submitting, let seconds = progress.secondsLeft(at: now) {
            secondsLeft = Int(seconds.rounded(.up))
        }
        var object: [String: Any] = [
            "createdAt": WireDate.text(manifest.createdAt), "createdBy": manifest.createdBy, "items": manifest.items, "itemsDone": progress.itemsDone,
            "itemsPerSecond": (progress.rate(at: now) * 10).rounded() / 10, "name": manifest.name, "requests": manifest.requests,
            "requestsDone": progress.requestsDone, "secondsLeft": secondsLeft, "state": state.rawValue,
        ]
        if let op = manifest.op { object["op"] = op.rawValue }
        if let pipeline = manifest.pipeline { object["pipeline"] = pipeline }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
