import ArgumentParser
import Pipeline

/// `iidbatch batches`: the jobs submitted, how far each is, and their receipts.
struct Batches: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Jobs: list batches with their state, progress, rate and ETA; watch one; write one's receipt.",
        discussion: """
            `submit` and `replay` name a batch on every record they produce and write its manifest \
            to the batch topic (--batch-topic, default \(BatchTopic.defaultName)). A batch is submitting \
            until every record was acknowledged; cancelled when a cancel in force names it \
            without a bound (`iidbatch control cancel PIPELINE --batch NAME`; a batch on several \
            request topics, or a cancel with --produced-before, runs on until every request is \
            answered), or once every request has \
            an outcome and one of them is cancelled; done when every request has an outcome; \
            paused while its pipeline is paused; else running. Progress counts the \
            outcomes naming the batch; the rate is over the last minute of completions.
            """,
        subcommands: [BatchesList.self, BatchesWatch.self, BatchesReceipt.self],
        defaultSubcommand: BatchesList.self
    )
}
