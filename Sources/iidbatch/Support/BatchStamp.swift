import ArgumentParser
import CommandSupport
import Foundation
import Kafka
import Pipeline

/// What `submit` and `replay` stamp on the records they produce: the batch's name, and its
/// manifest in the batch topic, written before the first record (`submitting`) and after the last
/// was acknowledged (`submitted`).
struct BatchStamp: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The batch (job) the records belong to: 1-\(BatchName.maxBytes) of A-Z a-z 0-9 . _ -, from a letter or digit (default: the input's name and the UTC time).",
            valueName: "name"))
    var batch: String?

    @Option(help: ArgumentHelp("Who submits, in the manifest (default: $USER, else $LOGNAME).", valueName: "name"))
    var by = ControlAuthor.currentUser

    @OptionGroup var batches: BatchOptions

    func validate() throws {
        if let batch, let problem = BatchName.problem(with: batch) { throw ValidationError("--batch: '\(batch)' \(problem)") }
    }

    /// The batch's name: `--batch`, else derived from `input` (nil: stdin) and `now`.
    func name(input: String?, at now: Date) -> String {
        batch ?? BatchName.derived(from: input, at: now)
    }

    /// Writes `manifest` with `producer` and waits for its acknowledgement. When `cluster` has no
    /// batch topic, nothing is written: a warning names the topic (the work goes on; `iidbatch
    /// batches` will not list it).
    ///
    /// - Throws: `RuntimeError` naming the topic when the cluster refuses the record.
    func write(_ manifest: BatchManifest, producer: KafkaProducer, cluster: KafkaClusterMetadata, kafka: KafkaOptions) async throws {
        let topic = batches.topic
        guard cluster.topic(topic.name) != nil else {
            if manifest.state == .submitting {
                Output.error(
                    "warning: the cluster has no topic \(topic.name): batch \(manifest.name)'s manifest is not written, so `iidbatch batches` will not list it; create the topic (compacted), or name another with --batch-topic"
                )
            }
            return
        }
        let record = topic.record(manifest)
        do { _ = try await producer.send(topic: record.topic, key: record.key, value: record.value) } catch {
            let configuration = try kafka.configuration()
            throw await kafka.timeout.sendFailure("writing batch \(manifest.name)'s manifest to \(topic.name)", topics: [topic.name], configuration, error)
        }
    }
}
