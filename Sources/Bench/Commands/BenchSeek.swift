import ArgumentParser
import CommandSupport
import Foundation
import InstanceAPI
import Kafka
import Pipeline

/// `iidbatch bench seek`: how long the operator queries that seek by time take on a large
/// outcome topic.
struct BenchSeek: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seek",
        abstract: "Fill an outcome topic, then time the operator queries that seek by time (outcomes --since, batches receipt).",
        discussion: """
            Fills an outcome topic of an embedded cluster (in this process, over TCP) with \
            --records realistic outcomes: all but --recent-percent of them completed over the \
            past 30 days, the rest within the last --window, with record timestamps to match \
            (oldest first in each partition). Then runs each query as a user does, this binary \
            in a child process against the cluster, and prints one line per query: its wall \
            time from start to exit, the records it read (its own count, on stderr) and the \
            outcomes it printed. The embedded cluster cannot look up offsets by time, so the \
            queries find their start by the reader's binary search, as on a broker without that \
            lookup. It keeps 5 MiB per partition: the records are zstd-compressed, and \
            --partitions must hold them (the fill fails when the topic lost any). The last \
            --receipt-requests recent outcomes are an erasure batch's (two installations each), \
            with its manifest and request records: `batches receipt` of it is the second query.
            """
    )

    @Option(help: "Outcome records in the topic.")
    var records = 5_000_000

    @Option(help: "Partitions of the outcome topic.")
    var partitions = 64

    @Option(help: "Share of the records completed within the last --window, percent.")
    var recentPercent = 1.0

    @Option(help: ArgumentHelp("How recent the recent records are, and the queries' --since.", valueName: "duration"))
    var window = "5m"

    @Option(help: "Requests of the erasure batch whose receipt is timed (the last of the recent outcomes).")
    var receiptRequests = 10_000

    /// A query the benchmark times: its name and the `iidbatch` arguments after the topic is known.
    struct Query {
        /// What the output line calls it.
        var name: String
        /// The command's arguments, given the topic and the bootstrap servers.
        var arguments: (_ topic: String, _ bootstrap: String) -> [String]
        /// The prefix of the command's stderr line that says how many records it read.
        var readLine: String
        /// What it printed, from its output: `printed 200 outcomes`.
        var results: (String) -> String
    }

    /// The topics besides the outcome topic the receipt reads.
    private static let batchTopic = "iidbatch-bench-batches"
    private static let requestTopic = "iidbatch-bench-requests"

    /// The queries timed, in order.
    private var queries: [Query] {
        [
            Query(
                name: "outcomes --since \(window)",
                arguments: { topic, bootstrap in ["outcomes", "--from", topic, "--since", window, "--brokers", bootstrap] },
                readLine: "outcomes: read ",
                results: { text in "printed \(text.split(separator: "\n").count { $0.contains(" bench-") }) outcomes" }),
            Query(
                name: "batches receipt (\(receiptRequests) requests)",
                arguments: { topic, bootstrap in
                    [
                        "batches", "receipt", BenchSeekOutcome.receiptBatch, "--outcomes", topic, "--batch-topic", Self.batchTopic, "--output", "/dev/null",
                        "--brokers", bootstrap,
                    ]
                },
                readLine: "receipt: read ",
                results: { text in
                    text.split(separator: "\n").first { $0.hasPrefix("batch \(BenchSeekOutcome.receiptBatch): ") }.map {
                        let summary = $0.dropFirst("batch \(BenchSeekOutcome.receiptBatch): ".count)
                        return "receipt of " + (summary.components(separatedBy: ", outcomesSha256").first ?? String(summary))
                    } ?? "no receipt line"
                }),
        ]
    }

    func validate() throws {
        guard records >= 1_000 else { throw ValidationError("--records must be at least 1000, got \(records)") }
        guard partitions >= 1 else { throw ValidationError("--partitions must be positive, got \(partitions)") }
        guard recentPercent > 0, recentPercent < 100 else { throw ValidationError("--recent-percent must be between 0 and 100, got \(recentPercent)") }
        guard DurationText.parse(window) != nil else { throw ValidationError("--window: not a duration: '\(window)' (e.g. 5m)") }
        let recent = Int(Double(records) * recentPercent / 100)
        guard receiptRequests >= 1, receiptRequests <= recent else {
            throw ValidationError("--receipt-requests must be between 1 and the recent records (\(recent)), got \(receiptRequests)")
        }
    }

    func run() async throws {
        let windowSeconds = DurationText.parse(window)!.seconds
        let topic = "iidbatch-bench-outcomes-\(UInt32.random(in: 0...UInt32.max))"
        let kafka = try EmbeddedKafka(
            brokers: 1,
            topics: [
                KafkaTopicSpec(name: topic, partitions: partitions), KafkaTopicSpec(name: Self.batchTopic), KafkaTopicSpec(name: Self.requestTopic),
                ControlTopic.embeddedSpec,
            ])
        defer { kafka.shutdown() }
        let recent = max(1, Int(Double(records) * recentPercent / 100))
        let old = records - recent
        Output.line(
            "workload: \(records) outcome records in \(partitions) partitions, \(old) over the past 30 days, \(recent) within the last \(window)")

        let producer = try KafkaProducer(
            configuration: kafka.configuration(["compression.type": "zstd", "linger.ms": "100", "batch.size": "65536"]))
        let filled = try await ContinuousClock().measure {
            let now = Date()
            try await fill(producer, topic, count: old, first: now.addingTimeInterval(-30 * 86_400), last: now.addingTimeInterval(-2 * windowSeconds))
            // The recent ones are stamped as of now, after the long fill: all within the window when the queries run.
            let end = Date()
            try await fill(producer, topic, count: recent, first: end.addingTimeInterval(-windowSeconds * 0.8), last: end, offset: old)
        }
        try await writeReceiptBatch(producer, first: records - receiptRequests)
        await producer.close()
        let held = try await heldRecords(kafka, topic)
        guard held == records else {
            throw RuntimeError(
                .software, "the topic holds \(held) of \(records) records: the embedded cluster dropped the oldest (5 MiB per partition); raise --partitions")
        }
        Output.line("fill: \(records) records in \(NumberText.fixed(filled.seconds, places: 1)) s")

        for query in queries {
            let started = ContinuousClock.now
            let child = try await BenchChild(query.name, query.arguments(topic, kafka.bootstrapServers))
            let status = await child.exitStatus(within: 600)
            let seconds = (ContinuousClock.now - started).seconds
            let text = child.text
            guard status == 0, let read = text.split(separator: "\n").first(where: { $0.hasPrefix(query.readLine) }) else {
                throw RuntimeError(.software, "\(query.name) exited \(status):\n\(text.suffix(2_000))")
            }
            let count = read.dropFirst(query.readLine.count).prefix { $0 != " " }
            Output.line("\(query.name): \(NumberText.fixed(seconds, places: 2)) s, read \(count) of \(records) records, \(query.results(text))")
        }
    }

    /// Produces `count` outcomes completed evenly from `first` to `last`, stamped so, spread
    /// over the partitions in turn.
    private func fill(_ producer: KafkaProducer, _ topic: String, count: Int, first: Date, last: Date, offset: Int = 0) async throws {
        guard count > 0 else { return }
        let step = last.timeIntervalSince(first) / Double(max(1, count - 1))
        let partitions = self.partitions
        let receiptsFrom = self.records - receiptRequests
        let records = (0..<count).lazy.map { n -> KafkaProducerRecord in
            let completed = first.addingTimeInterval(step * Double(n))
            let value =
                offset + n >= receiptsFrom
                ? BenchSeekOutcome.receiptWireBytes(BenchSeekOutcome.receiptRequest(offset + n), completedAt: completed)
                : BenchSeekOutcome.wireBytes(offset + n, completedAt: completed)
            return KafkaProducerRecord(
                topic: topic, key: nil, value: value, partition: Int32((offset + n) % partitions), timestamp: completed)
        }
        try await producer.sendInOrder(records)
    }

    /// The erasure batch's manifest (created a minute before its first outcome) and its request
    /// records, stamped then, as `submit` would have written them.
    private func writeReceiptBatch(_ producer: KafkaProducer, first: Int) async throws {
        let requests = (first..<records).map(BenchSeekOutcome.receiptRequest)
        let created = Date().addingTimeInterval(-DurationText.parse(window)!.seconds)
        let manifest = BatchManifest(
            name: BenchSeekOutcome.receiptBatch, op: .installationsDelete, pipeline: nil, requestTopics: [Self.requestTopic], requests: requests.count,
            items: requests.reduce(0) { $0 + $1.items.count }, createdBy: "bench", createdAt: created, inputSHA256: BatchManifest.inputDigest([]),
            state: .submitted)
        try await producer.sendInOrder(
            requests.lazy.map { request in
                KafkaProducerRecord(topic: Self.requestTopic, key: Array(request.recordKey.utf8), value: Array(request.jsonBody()), timestamp: created)
            } + [BatchTopic(name: Self.batchTopic).record(manifest)])
    }

    private func heldRecords(_ kafka: EmbeddedKafka, _ topic: String) async throws -> Int64 {
        let reader = try await KafkaTopicReader(configuration: kafka.configuration(), topics: [topic])
        defer { reader.close() }
        return reader.heldRecords
    }
}
