import Logging
import Pipeline
import ServiceLifecycle

/// The real-time listener of `iidbatch run`: follows the control topic from where the start's
/// fetch ended and puts each new version in force on the workers of the pipelines it concerns,
/// at once. A refused record is logged with its reason and changes nothing. A graceful shutdown
/// ends it; a fatal reader error stops the run, since workers that no longer hear their operator
/// must not go on.
struct ControlService: Service, CustomStringConvertible {
    let topic: ControlTopic
    let snapshot: ControlSnapshot
    let workers: [PipelineWorker]
    let logger = Logger(label: "iidbatch.control")

    /// The name the service group logs it by. (Without one the group would describe it by
    /// reflection, control history included, at every start.)
    var description: String { "control listener on \(topic.name)" }

    func run() async throws {
        let (topic, snapshot, workers, logger) = (topic, snapshot, workers, logger)
        try await cancelWhenGracefulShutdown {
            try await topic.follow(from: snapshot) { board, change in
                if case .refused = change {
                    logger.warning("control: \(topic.name): \(change); the last good version stays in force")
                } else {
                    logger.notice("control: \(topic.name): \(change)")
                }
                for worker in workers where change.affects(pipeline: worker.configuration.name) {
                    await worker.apply(board.settings(for: worker.configuration))
                }
            }
        }
    }
}
