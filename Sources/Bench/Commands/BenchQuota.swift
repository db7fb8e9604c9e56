import ArgumentParser
import CommandSupport
import Emulator
import Foundation
import InstanceAPI
import Kafka
import Pipeline

/// `iidbatch bench quota`: how close workers run to the backend's quota without tripping it.
struct BenchQuota: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quota",
        abstract: "Measure how workers find the backend's quota: calls/s against it, throttled share, dead letters, settle time.",
        discussion: """
            Starts an embedded Kafka cluster and the emulator in this process, with a quota of \
            --quota calls/s on the pipeline's subscribe API (FCM v1 per registration, or batchAdd \
            on iid-batch), produces a backlog of topics.subscribe requests of 1,000 real-size \
            registration tokens, and runs --workers `iidbatch run` processes in one consumer group \
            on --pipeline (the shipped topic pipeline by default), unchanged but for its topic and \
            group names. Every second it reads the emulator's counters. It prints the accepted \
            calls/s as a fraction of the quota and the share of attempts throttled twice: from the \
            workers' start, which is the arrival of the first call the emulator received (no \
            outcomes are read, so the first record a worker received is not known here), and after \
            --warm-up seconds. The quota is a token bucket that starts full, with one second's \
            calls: over a short run the share from the start can pass 100 %. Then it prints the \
            items dead-lettered; and with --change-at, the quota's change to --quota-after and the \
            seconds until the throttled share stays under 10 %.
            """
    )

    @Option(help: "The backend's quota on the subscribe API, calls per second.")
    var quota = 40.0

    @Option(help: ArgumentHelp("Latency the emulator adds to every call, ms.", valueName: "ms"))
    var latency = 0.0

    @Option(help: ArgumentHelp("Extra uniform random latency the emulator adds, 0 to this many ms.", valueName: "ms"))
    var jitter = 0.0

    @Option(help: "Worker processes in the group.")
    var workers = 1

    @Option(help: "Seconds to measure, from the first call.")
    var seconds = 40

    @Option(help: "Seconds after the first call before the figures count.")
    var warmUp = 10

    @Option(help: "Change the quota this many seconds after the first call.")
    var changeAt: Int?

    @Option(help: "The quota after --change-at.")
    var quotaAfter: Double?

    @Option(help: "The pipeline file the workers run (a topics pipeline), unchanged but for its topic and group names.")
    var pipeline = "pipelines/topic-changes.yaml"

    @Option(help: "Partitions of the request topic (default: 16, or more for the embedded cluster to keep the whole backlog).")
    var partitions: Int?

    func validate() throws {
        guard quota >= 1, quota <= 10_000 else { throw ValidationError("--quota must be 1...10000, got \(quota)") }
        guard (0...10_000).contains(latency) else { throw ValidationError("--latency must be 0...10000 ms, got \(latency)") }
        guard (0...10_000).contains(jitter) else { throw ValidationError("--jitter must be 0...10000 ms, got \(jitter)") }
        guard (1...8).contains(workers) else { throw ValidationError("--workers must be 1...8, got \(workers)") }
        guard seconds > warmUp, seconds <= 600 else { throw ValidationError("--seconds must be above --warm-up and at most 600, got \(seconds)") }
        guard (changeAt == nil) == (quotaAfter == nil) else { throw ValidationError("--change-at and --quota-after go together") }
        if let changeAt { guard changeAt > 0, changeAt < seconds else { throw ValidationError("--change-at must be within --seconds, got \(changeAt)") } }
    }

    func run() async throws {
        let shipped = try BenchShippedPipeline(path: pipeline, prefix: "bench-quota-\(UUID().uuidString.prefix(6))")
        let file = shipped.configuration
        guard file.takes(.topicsSubscribe) else { throw RuntimeError(.config, "\(pipeline): the quota bench needs a pipeline that takes topics.subscribe") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("iidbatch-bench-quota-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        // A backlog the workers cannot finish: more full calls than the quota allows in the run.
        let tokens = BenchItems.pool(1_000, BenchItems.registrationToken)
        let callsPerRecord = Double(1_000 / file.itemsPerCall(.topicsSubscribe))
        let backlog = Int(max(quota, quotaAfter ?? 0) * Double(seconds) * 1.3 / callsPerRecord) + 100
        let recordBytes = PipelineRequest(id: "bench-quota-0", op: .topicsSubscribe, target: .topic("bench-0"), items: tokens).jsonBody().count
        guard backlog * recordBytes <= Self.backlogBytesLimit else {
            throw RuntimeError(
                .usage,
                "a backlog of \(backlog) records of 1,000 tokens (\(backlog * recordBytes >> 20) MiB) is more than the bench produces (\(Self.backlogBytesLimit >> 20) MiB): lower --quota or --seconds"
            )
        }
        // Keyed by 64 topic names, the records spread unevenly: twice the partitions an even spread needs.
        let partitions = self.partitions ?? max(16, 2 * BenchBacklog.partitions(requests: backlog, bytesPerRequest: recordBytes))

        let kafka = try EmbeddedKafka(brokers: 1)
        try kafka.createTopic(file.requestTopic, partitions: partitions)
        for topic in Set([file.outcomeTopic, file.deadLetterTopic]) { try kafka.createTopic(topic, partitions: 4) }
        try kafka.createTopic(ControlTopic.embeddedSpec)
        let api = RequestOp.topicsSubscribe.api(on: file.topicBackend).rawValue
        let emulator = try await EmulatorServer.start(
            EmulatorConfiguration(faults: FaultPlan(quota: [api: quota], latencyMilliseconds: latency, jitterMilliseconds: jitter)))
        emulator.backend.seed(SeedRequest(tokens: tokens))
        let keyPath = folder.appendingPathComponent("key.json").path
        let pipelineFile = try shipped.write(in: folder)
        try emulator.writeServiceAccountKey(to: keyPath)

        let producer = try KafkaProducer(configuration: kafka.configuration())
        try await producer.sendInOrder(
            (0..<backlog).lazy.map { n in
                let request = PipelineRequest(id: "bench-quota-\(n)", op: .topicsSubscribe, target: .topic("bench-\(n % 64)"), items: tokens)
                return KafkaProducerRecord(topic: file.requestTopic, key: Array("bench-\(n % 64)".utf8), value: Array(request.jsonBody()))
            })
        await producer.close()
        Output.line(
            "bench quota: quota \(Self.number(quota)) \(api) calls/s\(quotaAfter.map { ", then \(Self.number($0)) at \(changeAt!) s" } ?? ""), latency \(Self.number(latency)) + 0–\(Self.number(jitter)) ms; \(workers) worker process(es) on the \(shipped.description) (rate-limit \(file.callsPerSecond.map(Self.number) ?? "none")); backlog \(backlog) records of 1,000 tokens"
        )

        // Stopped by a signal, or ending early by an error, the bench stops its workers too.
        let signals = BenchChild.stopAllOnSignal("bench quota", removing: folder)
        defer { signals.cancel() }
        var children: [BenchChild] = []
        defer { for child in children { Task { await child.stop() } } }
        for number in 1...workers {
            // The embedded cluster's group settings (why: `EmbeddedKafka.consumerDefaults`).
            children.append(
                try await BenchChild(
                    "worker \(number) of \(workers)",
                    [
                        "run", pipelineFile, "--brokers", kafka.bootstrapServers, "--credentials", keyPath, "--backend-url", emulator.baseURL, "--log-level",
                        "error",
                    ]
                        + EmbeddedKafka.consumerAssignments.flatMap { ["-X", $0] }))
        }

        var samples: [Sample] = []
        var started: ContinuousClock.Instant?
        var previous = ContinuousClock.now
        let deadline = ContinuousClock.now + .seconds(seconds + 120)
        while samples.count <= seconds, ContinuousClock.now < deadline {
            try await Task.sleep(for: .seconds(1))
            if let ended = children.first(where: { $0.exitStatus != nil }) {
                for child in children { await child.stop() }
                throw RuntimeError(
                    .software, "\(ended.name) exited with status \(ended.exitStatus ?? -1) before the measurement ended; it wrote:\n\(ended.text)")
            }
            let now = ContinuousClock.now
            let stats = emulator.backend.stats[api]
            if started == nil, stats.calls > 0 {
                // The first call's arrival: calls are counted when answered, so one answered by
                // now may have arrived a latency before the last sample.
                started = emulator.backend.callArrivals(after: previous - .seconds(1)).first ?? now
            }
            previous = now
            guard started != nil else { continue }
            samples.append(Sample(at: now, calls: stats.calls, throttled: stats.throttled))
            if let changeAt, let quotaAfter, samples.count == changeAt {
                try emulator.backend.setFaults(FaultPlan(quota: [api: quotaAfter], latencyMilliseconds: latency, jitterMilliseconds: jitter))
            }
        }
        for child in children { await child.stop() }
        children.removeAll()

        let deadLetters = try await Self.deadLetterItems(kafka, topic: file.deadLetterTopic)
        report(samples, start: started ?? .now, pipeline: shipped, deadLetters: deadLetters)
        await emulator.shutdown()
        kafka.shutdown()
    }

    /// The emulator's cumulative counters of the quota's API, read once a second.
    private struct Sample {
        var at: ContinuousClock.Instant
        var calls: Int
        var throttled: Int
    }

    /// Prints the figures from per-second samples of the emulator's cumulative counters; `start`
    /// is the first call's arrival.
    private func report(_ samples: [Sample], start: ContinuousClock.Instant, pipeline: BenchShippedPipeline, deadLetters: Int) {
        guard samples.count > warmUp + 1 else {
            Output.line("bench quota: the workers made no calls")
            return
        }
        func window(_ from: Int, _ to: Int) -> (accepted: Int, throttled: Int) {
            let calls = samples[to].calls - samples[from].calls
            let throttled = samples[to].throttled - samples[from].throttled
            return (calls - throttled, throttled)
        }
        let steadyEnd = min((changeAt ?? samples.count) - 1, samples.count - 1)
        if steadyEnd > warmUp {
            let end = samples[steadyEnd]
            let whole = (accepted: end.calls - end.throttled, throttled: end.throttled)
            let wholeSpan = (end.at - start).seconds
            let steady = window(warmUp, steadyEnd)
            let span = Double(steadyEnd - warmUp)
            Output.line(
                "at quota \(Self.number(quota)): from the workers' start \(Self.number(Double(whole.accepted) / wholeSpan)) calls/s accepted = \(Self.percent(Double(whole.accepted) / wholeSpan / quota)) of the quota, \(Self.percent(Double(whole.throttled) / Double(max(1, end.calls)))) of attempts throttled (first call to second \(steadyEnd)); after the warm-up \(Self.number(Double(steady.accepted) / span)) calls/s = \(Self.percent(Double(steady.accepted) / span / quota)) of the quota, \(Self.percent(Double(steady.throttled) / Double(max(1, steady.accepted + steady.throttled)))) of attempts throttled (seconds \(warmUp)–\(steadyEnd)); \(pipeline.description)"
            )
        }
        if let changeAt, let quotaAfter {
            // Seconds after the change until every following second has under 10 % throttled.
            var settle: Int?
            for start in changeAt..<(samples.count - 1) {
                let later = (start..<(samples.count - 1)).allSatisfy { second in
                    let one = window(second, second + 1)
                    return Double(one.throttled) < 0.1 * Double(max(1, one.accepted + one.throttled))
                }
                if later {
                    settle = start - changeAt
                    break
                }
            }
            let after = window(min(changeAt + 10, samples.count - 2), samples.count - 1)
            let span = Double(samples.count - 1 - min(changeAt + 10, samples.count - 2))
            Output.line(
                "after the change to \(Self.number(quotaAfter)): settled (under 10 % throttled every second) after \(settle.map { "\($0) s" } ?? "more than the run"); then \(Self.number(Double(after.accepted) / span)) calls/s = \(Self.percent(Double(after.accepted) / span / quotaAfter)) of the quota, \(Self.percent(Double(after.throttled) / Double(max(1, after.accepted + after.throttled)))) throttled"
            )
        }
        Output.line("items dead-lettered: \(deadLetters)")
    }

    /// Items in the dead letters of `topic`.
    private static func deadLetterItems(_ kafka: EmbeddedKafka, topic: String) async throws -> Int {
        let reader = try await KafkaTopicReader(configuration: kafka.configuration(), topics: [topic])
        defer { reader.close() }
        var items = 0
        for try await record in reader.records {
            items += DeadLetter(record).request?.items.count ?? 1
        }
        return items
    }

    /// The most backlog bytes the bench produces into the embedded cluster.
    static let backlogBytesLimit = 1 << 30

    private static func number(_ value: Double) -> String { NumberText.fixed(value, places: 1) }
    private static func percent(_ value: Double) -> String { NumberText.fixed(value * 100, places: 1) + " %" }
}
