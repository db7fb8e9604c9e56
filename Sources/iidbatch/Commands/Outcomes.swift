import ArgumentParser
import CommandSupport
import Foundation
import Kafka
import Pipeline

/// `iidbatch outcomes`: what became of the requests.
struct Outcomes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Watch work: show outcomes as a table (or JSON lines), with counts by status and code.",
        discussion: """
            Reads the outcome topic from its beginning (joining no consumer group, so the workers \
            are not disturbed) and prints one row per outcome, then a footer of counts by status \
            and item code. With --since it does not read from the beginning: each partition \
            starts at its first record stamped \(TopicScan.clockMarginText) before TIME (found by \
            time, in a few reads), allowing for that much skew between the worker's clock and the \
            record's timestamp; a line on stderr says how many records were read. \
            --follow keeps printing new outcomes until Ctrl-C. --json prints the \
            outcomes as they are on the wire, one per line (CR and LF between JSON tokens become spaces), and the footer on stderr. \
            --subject S answers "is subject S erased, and when?": every installation of S's \
            deletions with its final code and time, the deletions whose outcomes do not list \
            their installations (rejected, cancelled, too large, or a subject cut short) and why, \
            then the verdict; the exit status is 0 only when every installation of every \
            deletion seen has a success receipt line, and every deletion of the subject in the \
            deletion request topic (--requests, read first) has an outcome. It reads the whole \
            topics: --since and --request-id do not go with it.
            """
    )

    @Option(help: ArgumentHelp("The outcome topic (default: those of the pipeline files).", valueName: "kafka-topic"))
    var from: String?

    @OptionGroup var defaults: PipelineTopics

    @Option(help: "Only this request (and its replays).")
    var requestId: String?

    @Option(
        help: ArgumentHelp(
            "Only outcomes completed at or after TIME (ISO 8601, or an age: 90s, 15m, 2h, 1d). "
                + "Reading starts at the records stamped from \(TopicScan.clockMarginText) before TIME.",
            valueName: "time"))
    var since: TimeArgument?

    @Option(help: "The erasure receipt of a data subject: its installations.delete outcomes.")
    var subject: String?

    @Option(
        help: ArgumentHelp(
            "With --subject: a deletion request topic, read first for the subject's deletions that have no outcome yet "
                + "(default: those of the pipeline files that may take installations.delete). Repeatable.",
            valueName: "kafka-topic"))
    var requests: [String] = []

    @Flag(help: "Keep reading new outcomes until Ctrl-C.")
    var follow = false

    @Flag(help: "Print outcomes as JSON lines (the wire form).")
    var json = false

    @OptionGroup var kafka: KafkaOptions

    func validate() throws {
        // The verdict stands on every deletion of the subject the topic holds: one that failed
        // before --since, or under another request id, would otherwise not be seen, and the
        // subject said erased.
        if subject != nil, since != nil || requestId != nil {
            throw ValidationError(
                "--subject judges every deletion of the subject, read from the topic's beginning: it does not go with --since or --request-id")
        }
        if !requests.isEmpty, subject == nil { throw ValidationError("--requests goes with --subject: it finds the subject's deletions not answered yet") }
    }

    func run() async throws {
        let configuration = try kafka.configuration()
        let decoder = Outcome.decoder()
        var table = OutcomeTable()
        var erasure = subject.map(ErasureReport.init(subject:))
        // The subject's deletions are read before their outcomes: one whose outcome is not read
        // has not run to its end, and the subject is not erased.
        if var report = erasure {
            let topics = requests.isEmpty ? try defaults.requestTopics(taking: .installationsDelete, orName: "--requests") : requests
            let pipelines = defaults.readable(without: "requests are read with the default limits")
            _ = try await TopicScan.read(topics, kafka: configuration, timeout: kafka.timeout) { record in
                let value = record.value ?? []
                let request = try? RequestDecoder(readingTopic: record.topic, of: pipelines).decode(value).get()
                report.addRequest(request, value: value, at: RecordPosition(record))
                return true
            }
            erasure = report
        }
        if !json { Output.line(OutcomeTable.header) }
        let selected: @Sendable (Outcome) -> Bool = { [requestId, since, erasure] outcome in
            if let requestId, outcome.requestID != requestId && outcome.replayOf != requestId { return false }
            if let since, outcome.completedAt < since.date { return false }
            if let erasure, !erasure.concerns(outcome) { return false }
            return true
        }
        let extent = try await readUntilInterrupted(configuration) { record in
            guard let value = record.value else { return }
            guard let outcome = Outcome.read(value, using: decoder) else {
                erasure?.addUnreadable(value, at: RecordPosition(record))
                return
            }
            guard selected(outcome) else { return }
            let row = table.add(outcome)
            erasure?.add(outcome)
            Output.line(json ? Outcome.line(value) : row)
        }
        if let extent, since != nil { Output.error(extent.summary("outcomes", try topics())) }
        json ? Output.error(table.footer) : Output.line(table.footer)
        if let erasure {
            ErasureReceiptPrinter.print(erasure)
            if !erasure.isErased { throw ExitCode(1) }
        }
    }

    /// The outcome topics read.
    private func topics() throws -> [String] { try from.map { [$0] } ?? defaults.outcomeTopics(orName: "--from") }

    /// Reads the topic to its end (how much, returned), or with --follow until SIGINT/SIGTERM
    /// (nil). With --since, from that time less the clock margin.
    private func readUntilInterrupted(_ configuration: KafkaConfiguration, _ body: @escaping (KafkaRecord) -> Void) async throws -> TopicScan.Extent? {
        let topics = try topics()
        let since = since?.date
        guard follow else {
            return try await TopicScan.read(topics, kafka: configuration, timeout: kafka.timeout, since: since) { record in
                body(record)
                return true
            }
        }
        // Read here, one record at a time (no queue between the reader and the printing);
        // SIGINT or SIGTERM, from the start (the open may take --timeout), ends the loop.
        let signalled = AsyncStream<Void>.makeStream()
        let stopper = Task {
            _ = await Signals.waitForTermination()
            signalled.continuation.yield()
            signalled.continuation.finish()
        }
        defer { stopper.cancel() }
        let reader = try await TopicScan.open(topics, kafka: configuration, timeout: kafka.timeout, follow: true, since: since)
        defer { reader.close() }
        let closer = Task {
            for await _ in signalled.stream { break }
            reader.close()
        }
        defer { closer.cancel() }
        for try await record in reader.records { body(record) }
        return nil
    }
}
