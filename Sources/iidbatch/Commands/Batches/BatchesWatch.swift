import ArgumentParser
import CommandSupport
import Foundation
import Kafka
import Pipeline

/// `iidbatch batches watch NAME`: a live progress bar of one batch.
struct BatchesWatch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Follow one batch live until it is done or cancelled (or Ctrl-C): a bar on a terminal, a line every few seconds elsewhere.",
        discussion: """
            Reads the batch's outcomes from its creation, then follows the outcome, batch and \
            control topics (no re-reading). Exits 0 when the batch is done, 1 when it is cancelled \
            or the watch is interrupted.
            """)

    @Argument(help: "The batch's name.")
    var name: String

    @OptionGroup var sources: BatchSources

    /// What the followers hand the drawing loop.
    private enum Event: Sendable {
        case outcome(Outcome)
        case manifest(BatchManifest)
        case board(ControlBoard)
        case tick
        case stop(String)

        var isTick: Bool {
            if case .tick = self { return true }
            return false
        }
    }

    func run() async throws {
        let manifest = try await sources.manifest(name)
        let topics = try sources.outcomeTopics(for: [manifest])
        let configuration = try sources.kafka.configuration()
        let timeout = sources.kafka.timeout
        let terminal = isatty(STDOUT_FILENO) == 1
        let (events, continuation) = AsyncStream<Event>.makeStream()
        let sources = self.sources
        let name = self.name
        var tasks: [Task<Void, Never>] = []
        tasks.append(
            Task {
                do {
                    try await sources.readOutcomes(topics, since: manifest.outcomesSince, follow: true) { _, outcome in
                        if outcome.batch == name { continuation.yield(.outcome(outcome)) }
                        return !Task.isCancelled
                    }
                } catch { continuation.yield(.stop("reading \(topics.joined(separator: ", ")): \(error)")) }
            })
        tasks.append(
            Task {
                do {
                    try await TopicScan.read([sources.batches.batchTopic], kafka: configuration, timeout: timeout, follow: true) { record in
                        if record.key == Array(name.utf8), let value = record.value, let manifest = try? BatchManifest.parse(value) {
                            continuation.yield(.manifest(manifest))
                        }
                        return !Task.isCancelled
                    }
                } catch { continuation.yield(.stop("reading \(sources.batches.batchTopic): \(error)")) }
            })
        let topic = sources.control.topic(configuration)
        if let snapshot = try? await topic.fetch(timeout: timeout.duration) {
            continuation.yield(.board(snapshot.board))
            tasks.append(Task { try? await topic.follow(from: snapshot) { board, _ in continuation.yield(.board(board)) } })
        } else {
            Output.error("warning: cannot read the control topic \(sources.control.controlTopic): cancels and pauses are not shown")
        }
        tasks.append(
            Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: terminal ? .seconds(1) : .seconds(5))
                    continuation.yield(.tick)
                }
            })
        tasks.append(Task { continuation.yield(.stop("stopped on \(await Signals.waitForTermination())")) })

        var progress = BatchProgress(manifest: manifest)
        var board: ControlBoard?
        var state = BatchState.running
        var stopped: String?
        for await event in events {
            switch event {
            case .outcome(let outcome): progress.read(outcome)
            case .manifest(let manifest): progress.manifest = manifest
            case .board(let latest): board = latest
            case .tick: break
            case .stop(let why): stopped = why
            }
            let now = Date()
            state = progress.state(cancels: BatchSources.cancels(of: progress.manifest, on: board), paused: BatchSources.paused(progress.manifest, on: board))
            let finished = stopped != nil || state == .done || state == .cancelled
            if terminal {
                FileHandle.standardOutput.write(Data((BatchProgressText.bar(progress, state, at: now) + (finished ? "\n" : "")).utf8))
            } else if finished || event.isTick {
                Output.line(BatchProgressText.line(progress, state, at: now))
            }
            if finished { break }
        }
        for task in tasks { task.cancel() }
        continuation.finish()
        if let stopped { Output.error(stopped) }
        if state != .done { throw ExitCode(1) }
    }
}
