import ArgumentParser
import CommandSupport
import Foundation
import Kafka
import Pipeline
import WireJSON

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

    /// The batch's name before the batch topic is read: `--batch`, else derived from `input`
    /// (nil: stdin) and `now` (what a dry run shows).
    func proposedName(input: String?, at now: Date) -> String {
        batch ?? BatchName.derived(from: input, at: now)
    }

    /// The batch's name, one no batch in the batch topic has yet (when `cluster` has the topic),
    /// or one whose manifest `resumes` (the same work, left `submitting` by a run that failed
    /// halfway): a batch's progress, receipt and cancels take every record and outcome of its
    /// name, so a name is one job's. `--batch` is refused when another batch has it; a derived
    /// name gets `-2`, `-3`, … (`BatchName.unused`). Checked when the command starts: submits
    /// running at the same time need their own `--batch`.
    ///
    /// - Throws: `RuntimeError` `.usage` naming the batch that has `--batch`'s name.
    func name(
        input: String?, at now: Date, cluster: KafkaClusterMetadata, kafka: KafkaOptions, resumes: (BatchManifest) -> Bool = { _ in false }
    ) async throws -> String {
        let proposed = proposedName(input: input, at: now)
        guard cluster.topic(batches.batchTopic) != nil else { return proposed }
        let manifests = try await batches.manifests(kafka)
        guard let batch else { return BatchName.unused(proposed) { manifests[$0] != nil } }
        if let existing = manifests[batch], !resumes(existing) {
            throw RuntimeError(
                .usage,
                "--batch: \(batch) names a batch already in \(batches.batchTopic) (\(existing.state.rawValue), \(existing.requests) request(s), created \(WireDate.text(existing.createdAt)) by \(existing.createdBy)): a batch's progress, receipt and cancels take every record of its name, so a name is one job's; choose another (a submit of it that failed halfway, still submitting, is taken over by the same command on the same input, without --id-prefix)"
            )
        }
        return batch
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
