/// The topics `iidbatch replay` never produces a dead letter's request to. A letter names its
/// original topic in a header, which whoever can write the dead-letter topic chooses: produced
/// there blindly, a letter naming the control topic (keyed as a cancel or a pipeline's scope)
/// or the batch topic would overwrite that compacted key with request JSON, lifting a cancel or
/// erasing a manifest once compacted.
///
/// Rule: the dead-letter topic read, the control and batch topics, and every outcome,
/// dead-letter and export topic of the pipeline files at hand are no destination (compared by
/// bytes, as the broker names topics); a pipeline's request topic always is.
public struct ReplayDestinations: Sendable {
    /// Topics never produced to.
    private let never: Set<ExactText>

    /// The destinations, given the dead-letter topic read, the control and batch topics and the
    /// pipeline files (none when there are none here).
    public init(deadLetterTopic: String, controlTopic: String, batchTopic: String, pipelines: [PipelineConfiguration]) {
        let written = pipelines.flatMap { [$0.outcomeTopic, $0.deadLetterTopic, $0.exportTopic] }
        let requests = Set(pipelines.map { ExactText($0.requestTopic) })
        never = Set(([deadLetterTopic, controlTopic, batchTopic] + written).map(ExactText.init)).subtracting(requests)
    }

    /// Why `topic` is no destination, or nil when it may be one.
    public func refusal(of topic: String) -> String? {
        guard never.contains(ExactText(topic)) else { return nil }
        return "\(topic) is a dead-letter, outcome, export, control or batch topic, not a request topic"
    }
}
