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
        abstract: "Fill an outcome topic, then time the operator queries that seek by time (outcomes --since).",
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
            --partitions must hold them (the fill fails when the topic lost any).
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

    /// A query the benchmark times: its name and the `iidbatch` arguments after the topic is known.
    struct Query {
        /// What the output line calls it.
        var name: String
        /// The command's arguments, given the topic and the bootstrap servers.
        var arguments: (_ topic: String, _ bootstrap: String) -> [String]
        /// The prefix of the command's stderr line that says how many records it read.
        var readLine: String
        /// The prefix of the lines it prints per result, counted.
        var resultCount: (String) -> Int
    }

    /// The queries timed, in order.
    private var queries: [Query] {
        [
            Query(
                name: "outcomes --since \(window)",
                arguments: { topic, bootstrap in ["outcomes", "--from", topic, "--since", window, "--brokers", bootstrap] },
                readLine: "outcomes: read ",
                resultCount: { text in text.split(separator: "\n").count { $0.contains(" bench-") } })
        ]
    }

    func validate() throws {
        guard records >= 1_000 else { throw ValidationError("--records must be at least 1000, got \(records)") }
        guard partitions >= 1 else { throw ValidationError("--partitions must be positive, got \(partitions)") }
        guard recentPercent > 0, recentPercent < 100 else { throw ValidationError("--recent-percent must be between 0 and 100, got \(recentPercent)") }
        guard DurationText.parse(window) != nil else { throw ValidationError("--window: not a duration: '\(window)' (e.g. 5m)") }
    }

    func run() async throws {
        let windowSeconds = DurationText.parse(window)!.seconds
        let topic = "iidbatch-bench-outcomes-\(UInt32.random(in: 0...UInt32.max))"
        let kafka = try EmbeddedKafka(brokers: 1, topics: [KafkaTopicSpec(name: topic, partitions: partitions)])
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
        await producer.close()
        let held = try await heldRecords(kafka, topic)
        guard held == records else {
            throw RuntimeError(
                .software, "the topic holds \(held) of \(records) records: the embedded cluster dropped the oldest (5 MiB per partition); raise --partitions")
        }
        Output.line("fill: \(records) records in \(NumberText.fixed(filled.seconds, places: 1)) s")

        for query in queries {
            let started = ContinuousClock.now
            let child = try BenchChild(query.name, query.arguments(topic, kafka.bootstrapServers))
            let status = await child.exitStatus(within: 600)
            let seconds = (ContinuousClock.now - started).seconds
            let text = child.text
            guard status == 0, let read = text.split(separator: "\n").first(where: { $0.hasPrefix(query.readLine) }) else {
                throw RuntimeError(.software, "\(query.name) exited \(status):\n\(text.suffix(2_000))")
            }
            let count = read.dropFirst(query.readLine.count).prefix { $0 != " " }
            Output.line(
                "\(query.name): \(NumberText.fixed(seconds, places: 2)) s, read \(count) of \(records) records, printed \(query.resultCount(text)) outcomes"
            )
        }
    }

    /// Produces `count` outcomes completed evenly from `first` to `last`, stamped so, spread
    /// over the partitions in turn.
    private func fill(_ producer: KafkaProducer, _ topic: String, count: Int, first: Date, last: Date, offset: Int = 0) async throws {
        guard count > 0 else { return }
        let step = last.timeIntervalSince(first) / Double(max(1, count - 1))
        let partitions = self.partitions
        let records = (0..<count).lazy.map { n -> KafkaProducerRecord in
            let completed = first.addingTimeInterval(step * Double(n))
            let value = BenchSeekOutcome.wireBytes(offset + n, completedAt: completed)
            return KafkaProducerRecord(
                topic: topic, key: nil, value: value, partition: Int32((offset + n) % partitions), timestamp: completed)
        }
        try await producer.sendInOrder(records)
    }

    private func heldRecords(_ kafka: EmbeddedKafka, _ topic: String) async throws -> Int64 {
        let reader = try await KafkaTopicReader(configuration: kafka.configuration(), topics: [topic])
        defer { reader.close() }
        return reader.heldRecords
    }
}
