import ArgumentParser
import CommandSupport
import Emulator
import Foundation
import InstanceAPI
import Kafka
import Pipeline

/// `iidbatch bench pipeline`: end-to-end throughput of a worker, next to the raw ceiling of the
/// same backend calls at the same concurrency.
struct BenchPipeline: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pipeline",
        abstract: "Measure a worker end to end (Kafka → calls → outcomes) against the raw emulator ceiling.",
        discussion: """
            Everything runs in this process: an embedded Kafka cluster (librdkafka's mock), the \
            emulator and one worker, sharing the machine's cores. First the raw ceiling: the same \
            batchAdd calls (--tokens-per-call tokens) made directly with --concurrency. Then the \
            pipeline: topics.subscribe requests of --tokens-per-request tokens are produced up \
            front, and a worker consumes, packs, calls, and publishes one outcome per request. \
            Its adaptive rate starts at full speed: the emulator sets no quota here, and the ramp \
            from the default start is what `bench quota` measures, not the worker's cost. \
            Items/s counts from the first record the worker receives (after its group join, \
            shown apart) to the last outcome acknowledged; latency is \
            from a request's receipt by the worker to its outcome's acknowledgement. Peak RSS is \
            the whole process's (broker and emulator included).
            """
    )

    @Option(help: "Items (tokens) in all.")
    var items = 1_000_000

    @Option(help: "Tokens per request record.")
    var tokensPerRequest = 500

    @Option(help: "Tokens per backend call (the batch size; at most 1,000).")
    var tokensPerCall = 1_000

    @Option(help: "Backend calls in flight.")
    var concurrency = 16

    @Option(help: "Partitions of the request topic.")
    var partitions = 8

    func validate() throws {
        guard items >= 1_000, items <= 2_000_000 else { throw ValidationError("--items must be 1,000...2,000,000, got \(items)") }
        guard (1...1_000).contains(tokensPerCall) else { throw ValidationError("--tokens-per-call must be 1...1000, got \(tokensPerCall)") }
        guard (1...10_000).contains(tokensPerRequest) else { throw ValidationError("--tokens-per-request must be 1...10000, got \(tokensPerRequest)") }
        // The mock broker keeps only 5 MiB per partition.
        let bytes = items * 24 + (items / tokensPerRequest) * 100
        guard bytes / partitions < EmbeddedKafka.retainedBytesPerPartition * 3 / 4 else {
            throw ValidationError("about \(bytes / partitions) bytes per partition exceed what the embedded broker keeps; raise --partitions")
        }
    }

    func run() async throws {
        // As `iidbatch run` runs its worker: Swift tasks on SwiftNIO's event loops; here a loop
        // per core, since the emulator this bench serves shares the process.
        WorkerSetup.runTasksOnEventLoops(loops: ProcessInfo.processInfo.activeProcessorCount)
        let target = try await BenchTarget.make(connections: concurrency)
        let pool = (0..<min(items, 50_000)).map { "bench-token-\(NumberText.digits($0, width: 7))" }
        target.server.backend.seed(SeedRequest(tokens: pool))
        let topics = max(1, concurrency * 2)
        Output.line(
            "target: \(target.description); \(items) items, \(tokensPerRequest) per request, \(tokensPerCall) per call, concurrency \(concurrency), \(topics) FCM topics"
        )

        // 1. The raw ceiling: the same calls, straight from the client. Item k is token
        // k % pool and goes to the topic of its request, as in the pipeline below (on topics of
        // their own), so the emulator stores as many new subscriptions in both.
        let calls = items / tokensPerCall
        let raw = try await BenchCalls.run(calls: calls, concurrency: concurrency) { index in
            let first = index * tokensPerCall
            let batch = (first..<first + tokensPerCall).map { pool[$0 % pool.count] }
            _ = try await target.client.batchAdd(topic: "raw-\((first / tokensPerRequest) % topics)", tokens: batch)
        }
        let rawItems = raw.callsPerSecond * Double(tokensPerCall)
        Output.line(
            String(
                format: "raw emulator:  %.0f calls/s, %.0f items/s (call p50 %.1f ms, p99 %.1f ms)", raw.callsPerSecond, rawItems, raw.p50Milliseconds,
                raw.p99Milliseconds))

        // 2. The pipeline.
        let kafka = try EmbeddedKafka(brokers: 1)
        var configured = PipelineConfiguration(
            name: "bench", requestTopic: "bench.requests", group: "bench", maxItemsPerCall: tokensPerCall, linger: .milliseconds(20),
            concurrency: concurrency, maxInFlightItems: max(50_000, tokensPerCall * concurrency * 4))
        configured.adaptiveRate.start = 100_000
        let pipeline = configured
        for topic in [pipeline.requestTopic, pipeline.outcomeTopic, pipeline.deadLetterTopic] { try kafka.createTopic(topic, partitions: partitions) }
        let requests = stride(from: 0, to: items, by: tokensPerRequest).map { start in
            let count = min(tokensPerRequest, items - start)
            let topic = "bench-\((start / tokensPerRequest) % topics)"
            let tokens = (0..<count).map { pool[(start + $0) % pool.count] }
            return (topic, Array(PipelineRequest(id: "bench-\(start)", op: .topicsSubscribe, target: .topic(topic), items: tokens).jsonBody()))
        }
        let producer = try KafkaProducer(configuration: kafka.configuration())
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (key, value) in requests { group.addTask { _ = try await producer.send(topic: pipeline.requestTopic, key: Array(key.utf8), value: value) } }
            try await group.waitForAll()
        }
        await producer.close()

        let worker = try PipelineWorker(
            configuration: pipeline, consumer: kafka.consumerConfiguration(), producer: kafka.configuration(), client: target.client,
            wakes: WorkerSetup.eventLoopWakes())
        let launched = ContinuousClock.now
        let running = Task { await worker.run() }
        // A worker that has not finished after 600 s is stopped, which ends the waits below.
        let deadline = Task {
            try await Task.sleep(for: .seconds(600))
            await worker.shutdown()
        }
        defer { deadline.cancel() }
        // The clock starts with the first record, after the group join (a fixed cost, shown apart).
        let outcomes = requests.count
        _ = await worker.statistics { $0.records > 0 }
        let started = ContinuousClock.now
        let statistics = await worker.statistics { $0.outcomeCount >= outcomes }
        let seconds = (ContinuousClock.now - started).seconds
        let join = (started - launched).seconds
        guard statistics.outcomeCount >= outcomes else {
            throw RuntimeError(.software, "gave up: \(statistics.outcomeCount) of \(outcomes) outcomes after 600 s")
        }
        await worker.shutdown()
        await running.value
        let itemsPerSecond = Double(items) / seconds
        let p50 = statistics.latency.percentile(0.5).map { $0.seconds * 1_000 } ?? 0
        let p99 = statistics.latency.percentile(0.99).map { $0.seconds * 1_000 } ?? 0
        Output.line(
            String(
                format: "pipeline:      %.0f items/s (%d requests, %d calls, %.1f s after a %.1f s group join); request→outcome p50 %.0f ms, p99 %.0f ms",
                itemsPerSecond, requests.count, statistics.calls, seconds, join, p50, p99))
        Output.line("ratio:         \(NumberText.fixed(itemsPerSecond / rawItems, places: 2)) of the raw ceiling")
        Output.line("peak RSS:      \(Self.peakResidentMegabytes().map { "\(NumberText.fixed($0, places: 0)) MiB" } ?? "unknown") (the whole process)")
        kafka.shutdown()
        await target.shutdown()
    }

    /// VmHWM from /proc/self/status.
    static func peakResidentMegabytes() -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { return nil }
        return kilobytes / 1_024
    }
}
