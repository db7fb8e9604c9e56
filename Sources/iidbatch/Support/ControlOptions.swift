import ArgumentParser
import Kafka
import Pipeline

/// The control topic option `run`, `control` and `replay` share.
struct ControlOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The compacted topic of operator overrides (see `iidbatch control`).", valueName: "topic"))
    var controlTopic = ControlTopic.defaultName

    /// The control topic on the cluster `kafka` reaches.
    func topic(_ kafka: KafkaConfiguration) -> ControlTopic {
        ControlTopic(name: controlTopic, configuration: kafka)
    }
}
