import ArgumentParser
import CommandSupport
import Foundation
import Kafka
import Pipeline
import Synchronization

/// `iidbatch batches watch NAME`: a live progress bar of one batch.
struct BatchesWatch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Follow one batch live until it is done or cancelled (or Ctrl-C): a bar on a terminal, a line every few seconds elsewhere.",
        discussion: """
            Reads the batch's outcomes from its creation, then follows the outcome, batch and \
            control topics (no re-reading). Exits 0 when the batch is done with a result for every \
            item (failures included), 1 when it is cancelled, when records of it were rejected \
            (their items got no result), or when the watch is interrupted; a topic it cannot read \
            exits as every command does for it (78 a topic the cluster does not have, 69 a \
            cluster that does not answer).
            """)

    @Argument(help: "The batch's name.")
    var name: String

    @OptionGroup var sources: BatchSources

    /// What the followers have read, shared with the drawing loop: they update it and wake the
    /// loop, whose wakes coalesce (one pending at most), so a follower reading faster than the
    /// loop draws holds no backlog.
    private final class Shared: Sendable {
        struct Seen: Sendable {
            var progress: BatchProgress
            var board: ControlBoard?
            var stopped: String?
            /// A follower's failure to read: the watch's exit status.
            var failure: (any Error & Sendable)?
        }

        private let seen: Mutex<Seen>

        init(_ progress: BatchProgress) { seen = Mutex(Seen(progress: progress)) }

        func withLock<T: Sendable>(_ body: (inout Seen) -> T) -> T { seen.withLock { body(&$0) } }
    }

    func run() async throws {
        let manifest = try await sources.manifest(name)
        let topics = try sources.outcomeTopics(for: [manifest])
        let configuration = try sources.kafka.configuration()
        let timeout = sources.kafka.timeout
        let terminal = isatty(STDOUT_FILENO) == 1
        let shared = Shared(BatchProgress(manifest: manifest))
        // A wake says "look again"; `tick` also asks for a plain line off a terminal.
        let (wakes, continuation) = AsyncStream<Bool>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let sources = self.sources
        let name = self.name
        let stop: @Sendable (String) -> Void = { why in
            shared.withLock { if $0.stopped == nil { $0.stopped = why } }
            continuation.yield(false)
        }
        let fail: @Sendable (String, any Error & Sendable) -> Void = { what, error in
            shared.withLock { if $0.failure == nil { $0.failure = error } }
            stop("\(what): \(error)")
        }
        var tasks: [Task<Void, Never>] = []
        tasks.append(
            Task {
                do {
                    try await sources.readOutcomes(topics, since: manifest.outcomesSince, follow: true) { _, outcome in
                        if outcome.batch == name {
                            shared.withLock { _ = $0.progress.read(outcome) }
                            continuation.yield(false)
                        }
                        return !Task.isCancelled
                    }
                } catch { fail("reading \(topics.joined(separator: ", "))", error) }
            })
        tasks.append(
            Task {
                do {
                    try await TopicScan.read([sources.batches.batchTopic], kafka: configuration, timeout: timeout, follow: true) { record in
                        if record.key == Array(name.utf8), let value = record.value, let manifest = try? BatchManifest.parse(value) {
                            shared.withLock { $0.progress.manifest = manifest }
                            continuation.yield(false)
                        }
                        return !Task.isCancelled
                    }
                } catch { fail("reading \(sources.batches.batchTopic)", error) }
            })
        let topic = sources.control.topic(configuration)
        if let snapshot = try? await topic.fetch(timeout: timeout.duration) {
            shared.withLock { $0.board = snapshot.board }
            tasks.append(
                Task {
                    try? await topic.follow(from: snapshot) { board, _ in
                        shared.withLock { $0.board = board }
                        continuation.yield(false)
                    }
                })
        } else {
            Output.error("warning: cannot read the control topic \(sources.control.controlTopic): cancels and pauses are not shown")
        }
        tasks.append(
            Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: terminal ? .seconds(1) : .seconds(5))
                    continuation.yield(true)
                }
            })
        tasks.append(Task { stop("stopped on \(await Signals.waitForTermination())") })

        let readers = sources.readers
        var state = BatchState.running
        var stopped: String?
        var failure: (any Error)?
        var withoutResult = 0
        for await tick in wakes {
            let now = Date()
            let seen = shared.withLock { $0 }
            stopped = seen.stopped
            failure = seen.failure
            let progress = seen.progress
            state = progress.state(
                cancels: BatchSources.cancels(of: progress.manifest, on: seen.board, readers: readers),
                paused: BatchSources.paused(progress.manifest, on: seen.board))
            withoutResult = progress.itemsWithoutResult
            let finished = stopped != nil || state == .done || state == .cancelled
            if terminal {
                FileHandle.standardOutput.write(Data((BatchProgressText.bar(progress, state, at: now) + (finished ? "\n" : "")).utf8))
            } else if finished || tick {
                Output.line(BatchProgressText.line(progress, state, at: now))
            }
            if finished { break }
        }
        for task in tasks { task.cancel() }
        continuation.finish()
        // A failure to read is reported (once) with its exit status by the caller.
        if let failure { throw failure }
        if let stopped { Output.error(stopped) }
        if state == .done, withoutResult > 0 {
            Output.error("\(withoutResult) item(s) of \(name) got no result: their records were rejected (see iidbatch batches receipt \(name))")
        }
        if state != .done || withoutResult > 0 { throw ExitCode(1) }
    }
}
