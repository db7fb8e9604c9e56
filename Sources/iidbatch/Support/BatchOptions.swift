import ArgumentParser
import Pipeline

/// The batch topic option `submit`, `replay` and `batches` share.
struct BatchOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The compacted topic of batch manifests (see `iidbatch batches`).", valueName: "topic"))
    var batchTopic = BatchTopic.defaultName

    /// The batch topic.
    var topic: BatchTopic { BatchTopic(name: batchTopic) }
}
