import ArgumentParser
import CommandSupport
import Pipeline

/// The batch topic option `submit`, `replay` and `batches` share.
struct BatchOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The compacted topic of batch manifests (see `iidbatch batches`).", valueName: "topic"))
    var batchTopic = BatchTopic.defaultName

    /// The batch topic.
    var topic: BatchTopic { BatchTopic(name: batchTopic) }

    /// The latest manifest of every batch, read whole from the batch topic; refused records are
    /// reported on stderr.
    func manifests(_ kafka: KafkaOptions) async throws -> [String: BatchManifest] {
        var contents = BatchTopic.Contents()
        try await TopicScan.read([batchTopic], kafka: try kafka.configuration(), timeout: kafka.timeout) { record in
            contents.read(record)
            return true
        }
        for (position, error) in contents.refused { Output.error("\(position): \(error)") }
        return contents.manifests
    }
}
