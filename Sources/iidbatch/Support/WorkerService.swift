import CommandSupport
import Pipeline
import ServiceLifecycle

/// A pipeline worker as a swift-service-lifecycle `Service`: graceful shutdown of the group
/// (SIGINT, SIGTERM) drains and stops the worker; a worker that stops itself throws its
/// `PipelineWorkerError`, which shuts the rest of the group down and makes the process exit
/// non-zero (so a supervisor's `Restart=on-failure` fires).
struct WorkerService: Service, CustomStringConvertible {
    let worker: PipelineWorker

    var description: String { "pipeline \(worker.configuration.name)" }

    func run() async throws {
        let worker = self.worker
        await withGracefulShutdownHandler {
            await worker.run()
        } onGracefulShutdown: {
            Output.line("iidbatch run: \(worker.configuration.name): stopping (finishing in-flight work, then committing)")
            Task { await worker.shutdown() }
        }
        if let failure = await worker.failure { throw failure }
    }
}
