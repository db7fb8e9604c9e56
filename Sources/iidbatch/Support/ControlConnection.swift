import ArgumentParser
import CommandSupport
import Kafka
import Logging
import Pipeline

/// What every `iidbatch control` command reads: the cluster, the control topic and the pipeline
/// files (whose names are the scopes an override may have, and whose values are the defaults).
struct ControlConnection: ParsableArguments {
    @OptionGroup var kafka: KafkaOptions

    @OptionGroup var control: ControlOptions

    @Option(help: ArgumentHelp("The pipeline files (a folder or one file): the pipelines' names and the values overrides replace.", valueName: "path"))
    var pipelines = "pipelines"

    /// The control topic (created compacted when missing, where the cluster allows it), the
    /// pipeline files, and everything the topic holds now. A record written to the topic
    /// returned must be acknowledged within `--timeout` (`message.timeout.ms`).
    ///
    /// - Throws: `RuntimeError`: `.config` for a pipeline file that cannot be used,
    ///   `.unavailable` naming the brokers when the cluster does not answer within `--timeout`.
    func open() async throws -> (topic: ControlTopic, pipelines: [PipelineConfiguration], snapshot: ControlSnapshot) {
        let files: [PipelineConfiguration]
        do { files = try PipelineFile.loadAll(pipelines) } catch { throw RuntimeError(ExitStatus(error), "--pipelines: \(error)") }
        let kafka = WorkerSetup.logging(try self.kafka.configuration())
        let topic = control.topic(kafka)
        _ = try await self.kafka.timeout.reach(kafka, for: "reading the control topic \(topic.name)")
        await CompactedTopics.ensure([topic.name], configuration: kafka, logger: Logger(label: "iidbatch.control"))
        let snapshot: ControlSnapshot
        do { snapshot = try await topic.fetch(timeout: self.kafka.timeout.duration) } catch {
            throw self.kafka.timeout.failure("reading the control topic \(topic.name)", kafka, error)
        }
        // Each write is one record: librdkafka's own delivery timeout bounds it (the reader above
        // is a consumer, which is made without producer-only properties anyway).
        let writing = control.topic(kafka.withDefaults(["message.timeout.ms": "\(self.kafka.timeout.milliseconds)"]))
        return (writing, files, snapshot)
    }
}
