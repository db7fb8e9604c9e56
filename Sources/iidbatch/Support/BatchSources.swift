import ArgumentParser
import CommandSupport
import Foundation
import Kafka
import Pipeline

/// Where `iidbatch batches` reads a batch from: the manifests in the batch topic, the outcome
/// topics, the control topic (cancels, pauses) and the pipeline files (which outcome topic a
/// pipeline writes). Only reads; every error names the topic.
struct BatchSources: ParsableArguments {
    @Option(help: ArgumentHelp("An outcome topic. Repeatable. Default: those of the pipeline files.", valueName: "kafka-topic"))
    var outcomes: [String] = []

    @OptionGroup var defaults: PipelineTopics

    @OptionGroup var batches: BatchOptions

    @OptionGroup var control: ControlOptions

    @OptionGroup var kafka: KafkaOptions

    /// The latest manifest of every batch, read whole from the batch topic; refused records are
    /// reported on stderr.
    func manifests() async throws -> [String: BatchManifest] {
        try await batches.manifests(kafka)
    }

    /// The manifest of batch `name`.
    ///
    /// - Throws: `RuntimeError` `.dataError` when the batch topic has none of that name.
    func manifest(_ name: String) async throws -> BatchManifest {
        let all = try await manifests()
        guard let manifest = all[name] else {
            throw RuntimeError(
                .dataError, "no batch \(name) in \(batches.batchTopic) (\(all.count) batch(es): \(all.keys.sorted().prefix(5).joined(separator: ", ")))")
        }
        return manifest
    }

    /// The outcome topics to read for `manifests`: `--outcomes`, else the outcome topic of each
    /// one's pipeline file, else (a batch of no known pipeline) every pipeline file's.
    func outcomeTopics(for manifests: [BatchManifest]) throws -> [String] {
        if !outcomes.isEmpty { return outcomes }
        let files = try defaults.load(orName: "--outcomes")
        var topics = Set<String>()
        for manifest in manifests {
            if let file = files.first(where: { $0.name == manifest.pipeline }) {
                topics.insert(file.outcomeTopic)
            } else {
                topics.formUnion(files.map(\.outcomeTopic))
            }
        }
        return topics.sorted()
    }

    /// The control topic's board now, or nil (with a warning) when it cannot be read: then no
    /// batch shows as cancelled or paused.
    func board() async -> ControlBoard? {
        do { return try await control.topic(try kafka.configuration()).fetch(timeout: kafka.timeout.duration).board } catch {
            Output.error("warning: cannot read the control topic \(control.controlTopic) (\(error)): cancels and pauses are not shown")
            return nil
        }
    }

    /// The pipelines of the files at hand, by name, with the request topic each reads (none when
    /// the files cannot be read).
    var readers: [String: String] {
        Dictionary(((try? PipelineFile.loadAll(defaults.pipelines)) ?? []).map { ($0.name, $0.requestTopic) }, uniquingKeysWith: { first, _ in first })
    }

    /// The cancels in force on `board` that concern `manifest`: those of its pipeline, and those
    /// of any other pipeline that name the batch (the manifest's pipeline is the submitter's
    /// word, and a batch may span several, or none known) and, when `readers` knows that
    /// pipeline, read one of the batch's topics: `control cancel` writes no other, but one
    /// written by an older version, or when the batch topic could not be read, reaches none of
    /// the batch's records.
    static func cancels(of manifest: BatchManifest, on board: ControlBoard?, readers: [String: String] = [:]) -> [ControlCancel] {
        guard let board else { return [] }
        let naming = board.cancels.values.flatMap(\.values).filter { cancel in
            cancel.batch == manifest.name && cancel.pipeline != manifest.pipeline
                && (readers[cancel.pipeline].map(manifest.requestTopics.contains) ?? true)
        }
        return Array((manifest.pipeline.flatMap { board.cancels[$0] } ?? [:]).values) + naming
    }

    /// Whether `manifest`'s pipeline is paused on `board` (the documents in force for its name and `*`).
    static func paused(_ manifest: BatchManifest, on board: ControlBoard?) -> Bool {
        guard let pipeline = manifest.pipeline, let board else { return false }
        // Pausing is an override only (no pipeline file pauses), so the file's other settings do not matter here.
        return board.settings(for: PipelineConfiguration(name: pipeline, requestTopic: "")).paused
    }

    /// Reads the outcomes of `topics` completed since `since` (by record time), handing each
    /// decoded one of a batch to `body` with its record; with `follow`, until `body` returns false.
    @discardableResult
    func readOutcomes(
        _ topics: [String], since: Date?, follow: Bool = false, _ body: (KafkaRecord, Outcome) async throws -> Bool
    ) async throws -> TopicScan.Extent {
        let decoder = Outcome.decoder()
        return try await TopicScan.read(topics, kafka: try kafka.configuration(), timeout: kafka.timeout, follow: follow, since: since) { record in
            guard let value = record.value, let outcome = Outcome.read(value, using: decoder), outcome.batch != nil else { return true }
            return try await body(record, outcome)
        }
    }
}
