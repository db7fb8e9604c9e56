import Logging
import Pipeline
import ServiceLifecycle

/// Logs each worker's progress every `interval` while `iidbatch run` runs: records, outcomes,
/// dead letters, call attempts, throttled attempts, the adaptive rate per API and the operator's
/// overrides in force (their versions, and whether paused).
struct StatisticsReporter: Service, CustomStringConvertible {
    let workers: [PipelineWorker]
    let interval: Duration
    let logger = Logger(label: "iidbatch.run")

    /// The name the service group logs it by.
    var description: String { "statistics reporter" }

    func run() async throws {
        // Ends at once on a graceful shutdown, so it never delays the stop.
        try? await cancelWhenGracefulShutdown {
            while true {
                try await Task.sleep(for: interval)
                await report()
            }
        }
    }

    private func report() async {
        for worker in workers {
            let statistics = await worker.currentStatistics()
            logger.info(
                "\(worker.configuration.name): \(statistics.records) records, \(statistics.outcomeCount) outcomes, \(statistics.deadLetters) dead letters, \(statistics.calls) call attempts (\(statistics.throttledCalls) throttled); rate \(RateLine.describe(statistics))\(statistics.controlLine.isEmpty ? "" : "; " + statistics.controlLine)"
            )
        }
    }
}
