import ArgumentParser
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
    /// pipeline files, and everything the topic holds now.
    func open() async throws -> (topic: ControlTopic, pipelines: [PipelineConfiguration], snapshot: ControlSnapshot) {
        let files: [PipelineConfiguration]
        do { files = try PipelineFile.loadAll(pipelines) } catch { throw ValidationError("--pipelines: \(error)") }
        let kafka = WorkerSetup.logging(try self.kafka.configuration())
        let topic = control.topic(kafka)
        await CompactedTopics.ensure([topic.name], configuration: kafka, logger: Logger(label: "iidbatch.control"))
        do { return (topic, files, try await topic.fetch()) } catch {
            throw RuntimeError("cannot read the control topic \(topic.name): \(error)")
        }
    }
}
