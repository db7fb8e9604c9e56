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
            A replayed request counts once: its replays' outcomes settle the dead-lettered items \
            their records carried. A replay is a record whose replayOf is its own id, as iidbatch \
            replay writes them; one naming another request is a request of its own. \
            A record without a readable id is expected under topic/partition/offset, as the \
            worker names its rejection. --wait then follows both kinds of topic (reading only what \
            arrives, never re-reading) until nothing is missing or the time is up.
            """
    )

    @Option(help: ArgumentHelp("A request topic. Repeatable. Default: those of the pipeline files.", valueName: "kafka-topic"))
    var requests: [String] = []

    @Option(help: ArgumentHelp("The outcome topic. Default: those of the pipeline files.", valueName: "kafka-topic"))
    var outcomes: String?

    @OptionGroup var defaults: PipelineTopics

    @Option(help: ArgumentHelp("Follow the topics until nothing is missing, for up to this long (e.g. 2m).", valueName: "duration"))
    var wait: DurationArgument?

    @OptionGroup var kafka: KafkaOptions

    func run() async throws {
        let topics = Topics(
            requests: requests.isEmpty ? try defaults.requestTopics(orName: "--requests") : requests,
            outcomes: try outcomes.map { [$0] } ?? defaults.outcomeTopics(orName: "--outcomes"))
        let configuration = try kafka.configuration()
        let deadline = ContinuousClock.now + (wait?.duration ?? .zero)
        var audit = Audit(pipelines: defaults.readable(without: "request records are read with the default limits"))
        // The outcomes' snapshot is taken before the requests are read: each outcome in it then
        // answers a request in theirs, and whatever comes later is followed.
        let outcomeReader = try await TopicScan.open(topics.outcomes, kafka: configuration, timeout: kafka.timeout)
        defer { outcomeReader.close() }
        let requestExtent = try await TopicScan.read(topics.requests, kafka: configuration, timeout: kafka.timeout) { record in
            audit.add(request: record)
            return true
        }
        for try await record in outcomeReader.records { audit.add(outcome: record) }
        outcomeReader.close()
        if !audit.ledger.isComplete && ContinuousClock.now < deadline, let wait {
            let r = audit.ledger.reconciliation
            let replays = r.missingReplays.values.reduce(0, +)
            Output.error("reconcile: \(r.missing.count) request(s) and \(replays) replay(s) without an outcome; following the topics for up to \(wait.text)")
            try await follow(&audit, topics, from: requestExtent.endOffsets.merging(outcomeReader.endOffsets) { $1 }, until: deadline, configuration)
        }
        report(audit, topics)
        if !audit.ledger.reconciliation.isComplete || audit.behind { throw ExitCode(1) }
    }

    /// Follows the request and outcome topics from `offsets` (where the first reads ended) until
    /// nothing is missing and every request record that exists has been read, or `deadline`:
    /// nothing is read twice. At the deadline, a ledger complete with request records still
    /// unread (or whose leaders did not say) is marked `behind`: not complete.
    private func follow(
        _ audit: inout Audit, _ topics: Topics, from offsets: [KafkaTopicPartition: Int64], until deadline: ContinuousClock.Instant,
        _ configuration: KafkaConfiguration
    ) async throws {
        let requestTopics = Set(topics.requests)
        let follower = try await TopicScan.open(topics.requests + topics.outcomes, kafka: configuration, timeout: kafka.timeout, follow: true, from: offsets)
        defer { follower.close() }
        let timer = Task {
            try? await Task.sleep(until: deadline)
            follower.close()
        }
        defer { timer.cancel() }
        audit.ledger.keepsEarlyOutcomes = true
        // The request topics' ends when the ledger last looked complete: asked again only once
        // they are read, so a backlog of requests answered early costs no query per record.
        var ends: [KafkaTopicPartition: Int64]?
        /// Whether every request record that exists now was read; a leader that does not answer
        /// (within what is left of the wait) has not said, so not yet.
        func caughtUp() async -> Bool {
            if let ends, !follower.hasRead(upTo: ends) { return false }
            let left = max(.seconds(1), min(kafka.timeout.duration, deadline - ContinuousClock.now))
            ends = try? await follower.highWatermarks(of: requestTopics, timeout: left)
            return ends.map(follower.hasRead(upTo:)) ?? false
        }
        for try await record in follower.records {
            if requestTopics.contains(record.topic) { audit.add(request: record) } else { audit.add(outcome: record) }
            // Complete with what was read is not complete while request records already produced
            // (say, by a submit still running) are unread in another partition.
            if audit.ledger.isComplete, await caughtUp() { return }
        }
        // The deadline: the records read may all be answered, but were they all that existed?
        if audit.ledger.isComplete, await !caughtUp() { audit.behind = true }
    }

    /// The topics audited.
    private struct Topics {
        var requests: [String]
        var outcomes: [String]
    }

    private struct Audit {
        var ledger = FollowedReconciliation()
        /// The wait ended with request records unread (or their leaders silent): whatever was
        /// read has its outcome, but that is not all the requests.
        var behind = false
        var records = 0
        var replayRecords = 0
        /// The pipelines whose workers read the request topics: a record is read as its worker
        /// read it (`RequestDecoder(readingTopic:of:)`), so one it rejected for its size is
        /// expected under its position, as that worker answered it.
        let pipelines: [PipelineConfiguration]
        let outcomeDecoder = Outcome.decoder()

        init(pipelines: [PipelineConfiguration]) { self.pipelines = pipelines }

        /// Expects what a request record asks for.
        mutating func add(request record: KafkaRecord) {
            records += 1
            switch RequestDecoder(readingTopic: record.topic, of: pipelines).decode(record.value ?? []) {
            case .success(let request):
                if RequestID.isReplay(id: request.id, replayOf: request.replayOf) {
                    replayRecords += 1
                    ledger.expectReplay(request, at: RecordPosition(record))
                } else {
                    ledger.expect(request.id)
                }
            case .failure(let rejection):
                // A replay record rejected unread is no original: its own outcome answers it.
                let id = rejection.requestID ?? RecordPosition(record).description
                ledger.expect(id, original: rejection.replayOf.map { RequestID.isReplay(id: id, replayOf: $0) } != true)
            }
        }

        /// Counts an outcome record of an expected request.
        mutating func add(outcome record: KafkaRecord) {
            guard let value = record.value, let outcome = Outcome.read(value, using: outcomeDecoder) else { return }
            ledger.record(outcome)
        }
    }

    private func report(_ audit: Audit, _ topics: Topics) {
        let r = audit.ledger.reconciliation
        let replayed = r.replayCounts.count
        Output.line(
            "reconcile: \(r.expected.count) requests in \(topics.requests.joined(separator: ", ")) (\(audit.records) records, \(audit.replayRecords) of them replays); \(audit.ledger.outcomes) of their outcomes in \(topics.outcomes.joined(separator: ", "))"
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
        let replaysOnly = Set(r.answeredByReplaysOnly)
        for id in r.missing.prefix(100) {
            Output.line("  missing: \(id)" + (replaysOnly.contains(id) ? " (only its replays' outcomes were read: they list only what they carried)" : ""))
        }
        for (id, count) in r.missingReplays.sorted(by: { $0.key < $1.key }).prefix(100) { Output.line("  missing: \(count) replay outcome(s) of \(id)") }
        if r.missing.count > 100 { Output.line("  … and \(r.missing.count - 100) more missing") }
        for (id, count) in duplicates.sorted(by: { $0.key < $1.key }).prefix(100) { Output.line("  duplicate: \(id) has \(count) outcomes") }
        let missingReplays = r.missingReplays.values.reduce(0, +)
        if audit.ledger.earlyDropped > 0 {
            Output.error(
                "reconcile: \(audit.ledger.earlyDropped) outcome(s) that came before any request of theirs were dropped, the oldest first, past \(FollowedReconciliation.mostEarlyOutcomes) kept: a request of one, read later, shows as missing"
            )
        }
        if r.unheldAnswers > 0 {
            Output.error(
                "reconcile: \(r.unheldAnswers) replay outcome(s) named a record not read, past \(Reconciliation.mostHeldAnswers) held: their successes settled nothing (the items show as failed)"
            )
        }
        if audit.behind {
            Output.line(
                "INCOMPLETE: every request read has an outcome, but the wait ended before the request topics were read to their ends (a submit still producing, or a leader that did not answer)"
            )
            return
        }
        Output.line(
            r.isComplete
                ? "complete: every request has an outcome" : "INCOMPLETE: \(r.missing.count) request(s) and \(missingReplays) replay(s) without an outcome")
    }
}
