import ArgumentParser
import CommandSupport
import Foundation
import Kafka
import Pipeline

/// `iidbatch reconcile`: the no-loss audit.
struct Reconcile: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Audit: match every request with its outcome; exit 1 when any has none.",
        discussion: """
            Reads the request topics and the outcome topic from their beginnings and reports \
            every request without an outcome, every request with more than one outcome of its own \
            (repeated after a crash, or submitted twice), and counts by op, status and item code. \
            A replayed request counts once: its replays' outcomes settle its dead-lettered items. \
            A record without a readable id is expected under topic/partition/offset, as the \
            worker names its rejection. --wait re-reads until nothing is missing or the time is up.
            """
    )

    @Option(help: ArgumentHelp("A request topic. Repeatable. Default: those of the pipeline files.", valueName: "kafka-topic"))
    var requests: [String] = []

    @Option(help: ArgumentHelp("The outcome topic. Default: those of the pipeline files.", valueName: "kafka-topic"))
    var outcomes: String?

    @OptionGroup var defaults: PipelineTopics

    @Option(help: ArgumentHelp("Re-read until nothing is missing, for up to this long (e.g. 2m).", valueName: "duration"))
    var wait: DurationArgument?

    @OptionGroup var kafka: KafkaOptions

    func run() async throws {
        let topics = Topics(
            requests: requests.isEmpty ? try defaults.requestTopics(orName: "--requests") : requests,
            outcomes: try outcomes.map { [$0] } ?? defaults.outcomeTopics(orName: "--outcomes"))
        let configuration = try kafka.configuration()
        let deadline = ContinuousClock.now + (wait?.duration ?? .zero)
        var audit = try await read(configuration, topics)
        while !audit.reconciliation.isComplete && ContinuousClock.now < deadline {
            try await Task.sleep(for: .seconds(1))
            audit = try await read(configuration, topics)
        }
        report(audit, topics)
        if !audit.reconciliation.isComplete { throw ExitCode(1) }
    }

    /// The topics audited.
    private struct Topics {
        var requests: [String]
        var outcomes: [String]
    }

    private struct Audit {
        var reconciliation = Reconciliation()
        var records = 0
        var replayRecords = 0
        var outcomes = 0
    }

    private func read(_ configuration: KafkaConfiguration, _ topics: Topics) async throws -> Audit {
        var audit = Audit()
        let decoder = RequestDecoder()
        try await TopicScan.read(topics.requests, kafka: configuration, timeout: kafka.timeout) { record in
            audit.records += 1
            switch decoder.decode(record.value ?? []) {
            case .success(let request):
                if let original = request.replayOf {
                    audit.replayRecords += 1
                    audit.reconciliation.expectReplay(of: original)
                } else {
                    audit.reconciliation.expect(request.id)
                }
            case .failure(let rejection):
                audit.reconciliation.expect(rejection.requestID ?? RecordPosition(record).description)
            }
            return true
        }
        let expected = Set(audit.reconciliation.expected)
        let outcomeDecoder = Outcome.decoder()
        try await TopicScan.read(topics.outcomes, kafka: configuration, timeout: kafka.timeout) { record in
            guard let value = record.value, let outcome = try? outcomeDecoder.decode(Outcome.self, from: Data(value)),
                expected.contains(outcome.replayOf ?? outcome.requestID)
            else { return true }
            audit.outcomes += 1
            audit.reconciliation.record(outcome)
            return true
        }
        return audit
    }

    private func report(_ audit: Audit, _ topics: Topics) {
        let r = audit.reconciliation
        let replayed = r.replayCounts.count
        Output.line(
            "reconcile: \(r.expected.count) requests in \(topics.requests.joined(separator: ", ")) (\(audit.records) records, \(audit.replayRecords) of them replays); \(audit.outcomes) of their outcomes in \(topics.outcomes.joined(separator: ", "))"
        )
        for (op, statuses) in r.statusesByOp.sorted(by: { $0.key < $1.key }) {
            let byStatus = OutcomeStatus.allCases.compactMap { status in statuses[status].map { "\(status.rawValue) \($0)" } }
            Output.line("  \(op.padded(20)) \(byStatus.joined(separator: ", ")); items: \(OutcomeTable.codes(r.codesByOp[op] ?? [:]))")
        }
        let duplicates = r.duplicates
        let replayOutcomes = r.replayCounts.values.reduce(0, +)
        Output.line(
            "answered \(r.answered) of \(r.expected.count); missing \(r.missing.count); duplicates \(duplicates.count); replayed \(replayed) (\(replayOutcomes) replay outcome(s) for \(audit.replayRecords) replay record(s))"
        )
        for id in r.missing.prefix(100) { Output.line("  missing: \(id)") }
        for (id, count) in r.missingReplays.sorted(by: { $0.key < $1.key }).prefix(100) { Output.line("  missing: \(count) replay outcome(s) of \(id)") }
        if r.missing.count > 100 { Output.line("  … and \(r.missing.count - 100) more missing") }
        for (id, count) in duplicates.sorted(by: { $0.key < $1.key }).prefix(100) { Output.line("  duplicate: \(id) has \(count) outcomes") }
        let missingReplays = r.missingReplays.values.reduce(0, +)
        Output.line(
            r.isComplete
                ? "complete: every request has an outcome" : "INCOMPLETE: \(r.missing.count) request(s) and \(missingReplays) replay(s) without an outcome")
    }
}
