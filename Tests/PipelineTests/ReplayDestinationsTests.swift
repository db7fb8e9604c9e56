import Testing

@testable import Pipeline

/// A dead letter names its original topic in a header its writer chooses: `replay` never produces
/// to a topic iidbatch writes for itself.
@Suite("Replay destinations: never the control, batch, outcome or dead-letter topics")
struct ReplayDestinationsTests {
    @Test("the dead-letter topic read, the control and batch topics, and the pipelines' outcome, dead-letter and export topics are no destination")
    func destinations() {
        let deletions = PipelineConfiguration(name: "deletions", requestTopic: "iidbatch.deletions")
        let destinations = ReplayDestinations(
            deadLetterTopic: "dlq", controlTopic: "iidbatch.control", batchTopic: "iidbatch.batches", pipelines: [deletions])
        #expect(destinations.refusal(of: "iidbatch.deletions") == nil && destinations.refusal(of: "other.requests") == nil)
        for topic in [
            "dlq", "iidbatch.control", "iidbatch.batches", deletions.outcomeTopic, deletions.deadLetterTopic, deletions.exportTopic,
        ] {
            #expect(destinations.refusal(of: topic) != nil, "\(topic)")
        }
        // A pipeline whose request topic is another's outcome topic takes its replays.
        let chained = PipelineConfiguration(name: "chained", requestTopic: deletions.outcomeTopic)
        let both = ReplayDestinations(
            deadLetterTopic: "dlq", controlTopic: "iidbatch.control", batchTopic: "iidbatch.batches", pipelines: [deletions, chained])
        #expect(both.refusal(of: deletions.outcomeTopic) == nil && both.refusal(of: chained.outcomeTopic) != nil)
        let none = ReplayDestinations(deadLetterTopic: "dlq", controlTopic: "iidbatch.control", batchTopic: "iidbatch.batches", pipelines: [])
        #expect(none.refusal(of: "iidbatch.control") != nil && none.refusal(of: "anything.requests") == nil)
    }
}
