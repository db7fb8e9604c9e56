import CommandSupport
import Pipeline
import ServiceLifecycle

/// A pipeline worker as a swift-service-lifecycle `Service`: graceful shutdown of the group
/// (SIGINT, SIGTERM) drains and stops the worker, and every other worker of the run at the same
/// time (`WorkerStops`); a worker that stops itself throws its
/// `PipelineWorkerError`, which shuts the rest of the group down and makes the process exit
/// non-zero (so a supervisor's `Restart=on-failure` fires).
struct WorkerService: Service, CustomStringConvertible {
    let worker: PipelineWorker
    /// The stops of every worker of the run, begun together.
    let stops: WorkerStops

    var description: String { "pipeline \(worker.configuration.name)" }

    func run() async throws {
        let (worker, stops) = (self.worker, self.stops)
        await withGracefulShutdownHandler {
            await worker.run()
        } onGracefulShutdown: {
            stops.beginAll()
        }
        if let failure = await worker.failure { throw failure }
        // Stopped with the others before the group told this service to: wait until it does (it
        // is on its way), since a service of a group shutting down that ends before it is told
        // is a failure to the group.
        if stops.haveBegun { try? await gracefulShutdown() }
    }
}
