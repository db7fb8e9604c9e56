import CommandSupport
import Pipeline
import Synchronization

/// The stop of every worker of a run, begun at once. A swift-service-lifecycle group shuts its
/// services down one after another, each waiting for the last to end; a worker's stop (its
/// drain, the commit, leaving the group, the flush) can take most of a minute when Kafka or the
/// backend is slow, so four pipelines would need four stops' time, past a pod's grace period.
/// The first worker service told to shut down begins all the stops; the others find them begun.
final class WorkerStops: Sendable {
    private let workers: [PipelineWorker]
    private let begun = Mutex(false)

    /// The stops of `workers`, not begun.
    init(_ workers: [PipelineWorker]) {
        self.workers = workers
    }

    /// Whether the stops were begun.
    var haveBegun: Bool { begun.withLock { $0 } }

    /// Begins every worker's stop (drain, then commit), each in a task of its own, the first
    /// time it is called; later calls do nothing. (The group's other services, the HTTP server
    /// among them, are told first: "at once" holds among the workers.)
    func beginAll() {
        let first = begun.withLock { begun in
            defer { begun = true }
            return !begun
        }
        guard first else { return }
        for worker in workers {
            Task {
                // A worker that failed has stopped already.
                if await worker.failure == nil {
                    Output.line("iidbatch run: \(worker.configuration.name): stopping (finishing in-flight work, then committing)")
                }
                await worker.shutdown()
            }
        }
    }
}
