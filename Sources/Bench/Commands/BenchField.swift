import ArgumentParser
import CommandSupport
import Emulator
import Foundation
import InstanceAPI
import Kafka
import Pipeline

/// `iidbatch bench field`: the field profile. The shipped topic pipeline against a backend as
/// Google's is met in the field: over HTTPS and HTTP/2, with latency and jitter, behind a quota.
struct BenchField: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "field",
        abstract:
            "Run the shipped topic pipeline against an HTTPS + HTTP/2 emulator with latency, jitter and a quota: share of the quota, throttled share, connections, CPU per call.",
        discussion: """
            Starts the embedded broker and an emulator as separate processes. The emulator serves \
            HTTPS (HTTP/2 by ALPN) with a self-signed certificate for 127.0.0.1 written to the \
            bench's folder, adds --latency plus a uniform random 0 to --jitter ms to every call \
            (the defaults: 50 ms ± 25), and allows --quota calls/s on the pipeline's subscribe API \
            (fcm.subscribe for the shipped FCM v1 file), answering 429 above it (a token bucket \
            that starts full, with one second's calls: a short run can pass 100 %). The worker is one \
            `iidbatch run` process on --pipelines' topic-changes.yaml, unchanged but for its topic \
            and group names, trusting the certificate with --ca-file. The backlog, produced up \
            front, is topics.subscribe requests of 100 real-size registration tokens, enough for \
            --calls subscribe calls. It prints: the accepted calls/s as a share of the quota from \
            the worker's start (its first received record, as the outcomes record it) to the last \
            outcome; the share of attempts throttled; the TCP connections the emulator accepted \
            from the worker (its count, less the bench's own reads of it); the worker's CPU \
            (user + system, from /proc, from its join to the last outcome) per accepted call; and \
            request→outcome latency.
            """)

    /// Registration tokens per request of the backlog.
    static let tokensPerRequest = BenchShape.topics100.itemsPerRequest

    @Option(help: "Subscribe calls the backlog makes (default: over 60 s of work at the default quota).")
    var calls = 200_000

    @Option(help: ArgumentHelp("Latency the emulator adds to every call, ms.", valueName: "ms"))
    var latency = 25.0

    @Option(help: ArgumentHelp("Extra uniform random latency the emulator adds, 0 to this many ms.", valueName: "ms"))
    var jitter = 50.0

    @Option(help: ArgumentHelp("The emulator's quota on the pipeline's subscribe API, calls/s.", valueName: "calls/s"))
    var quota = 3_000.0

    @Option(help: ArgumentHelp("The folder of the shipped pipeline files; the bench runs its topic-changes.yaml.", valueName: "dir"))
    var pipelines = "pipelines"

    @Option(help: "Partitions of the request topic (default: 16, or more for the embedded broker to keep the whole backlog).")
    var partitions: Int?

    func validate() throws {
        guard (Self.tokensPerRequest...2_000_000).contains(calls) else {
            throw ValidationError("--calls must be \(Self.tokensPerRequest)...2,000,000, got \(calls)")
        }
        guard (0...10_000).contains(latency) else { throw ValidationError("--latency must be 0...10000 ms, got \(latency)") }
        guard (0...10_000).contains(jitter) else { throw ValidationError("--jitter must be 0...10000 ms, got \(jitter)") }
        guard (1...1_000_000).contains(quota) else { throw ValidationError("--quota must be 1...1000000 calls/s, got \(quota)") }
        if let partitions, !(1...256).contains(partitions) { throw ValidationError("--partitions must be 1...256, got \(partitions)") }
    }

    func run() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("iidbatch-bench-field-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let shipped = try BenchShippedPipeline(
            path: (pipelines as NSString).appendingPathComponent(BenchShape.topics100.shippedFile), prefix: "bench-field-\(UUID().uuidString.prefix(6))")
        let pipeline = shipped.configuration
        guard pipeline.takes(.topicsSubscribe) else { throw RuntimeError(.config, "\(shipped.source) does not take topics.subscribe") }
        let api = RequestOp.topicsSubscribe.api(on: pipeline.topicBackend).rawValue
        let callsPerRequest = max(1, Self.tokensPerRequest / pipeline.itemsPerCall(.topicsSubscribe))
        let requests = (calls + callsPerRequest - 1) / callsPerRequest
        let pools = BenchShape.Pools(count: BenchWorker.poolSize)
        let tokensFile = folder.appendingPathComponent("tokens.txt")
        try pools.registrationTokens.joined(separator: "\n").write(to: tokensFile, atomically: true, encoding: .utf8)
        let partitions =
            self.partitions
            ?? max(16, BenchBacklog.partitions(requests: requests, bytesPerRequest: BenchShape.topics100.request(0, pools: pools).request.jsonBody().count))
        let tls = try BenchTLS(in: folder)
        Output.line(
            "bench field: \(requests * callsPerRequest) \(api) calls, quota \(Self.number(quota))/s, latency \(Self.number(latency)) + 0–\(Self.number(jitter)) ms over HTTPS, release build: \(BenchWorker.isRelease)"
        )
        let signals = BenchChild.stopAllOnSignal("bench field", removing: folder)
        defer { signals.cancel() }
        var children: [BenchChild] = []
        defer { for child in children { Task { await child.stop() } } }

        let (broker, brokers) = try await BenchChild.broker(
            topics: ["\(pipeline.requestTopic):\(partitions)", "\(pipeline.outcomeTopic):4"]
                + (pipeline.deadLetterTopic == pipeline.outcomeTopic ? [] : [pipeline.deadLetterTopic]))
        children.append(broker)
        let keyPath = folder.appendingPathComponent("key.json").path
        let (emulator, baseURL) = try await BenchChild.emulator(
            [
                "--port", "0", "--write-key", keyPath, "--tokens", tokensFile.path, "--latency", "\(latency)", "--jitter", "\(jitter)",
                "--quota", "\(api)=\(quota)",
            ] + tls.emulatorArguments)
        children.append(emulator)

        var kafka = KafkaConfiguration(bootstrapServers: brokers)
        kafka.logHandler = { _, _ in }
        let produced = try await BenchBacklog.produce(
            .topics100, requests: requests, pools: pools, topic: pipeline.requestTopic, kafka: kafka, spread: partitions)
        let pipelineFile = try shipped.write(in: folder)
        let reader = try await KafkaTopicReader(configuration: kafka, topics: [pipeline.outcomeTopic], follow: true)
        defer { reader.close() }
        let before = try await tls.stats(baseURL: baseURL)
        let worker = try await BenchChild(
            "worker",
            ["run", pipelineFile, "--brokers", brokers, "--credentials", keyPath, "--backend-url", baseURL, "--log-level", "warning"]
                + tls.workerArguments)
        children.append(worker)
        _ = try await worker.line(startingWith: "iidbatch run: \(pipeline.name): ")
        let joined = worker.usage
        let outcomes = try await BenchOutcomes.read(reader, count: produced, worker: worker)
        let usage = worker.usage
        let after = try await tls.stats(baseURL: baseURL)
        await worker.stop()

        let attempts = after[api].calls - before[api].calls
        let throttled = after[api].throttled - before[api].throttled
        let accepted = attempts - throttled
        let seconds = max(outcomes.seconds, 0.001)
        let cpu = (usage?.cpuSeconds ?? 0) - (joined?.cpuSeconds ?? 0)
        // Each stats read is a client of its own, one connection, counted when accepted.
        let connections = after.connections - before.connections - 1
        Output.line(
            String(
                format:
                    "field: %d requests, %d %@ calls accepted in %.1f s: %.0f calls/s = %.1f %% of the quota %.0f/s from the worker's start; %.1f %% of %d attempts throttled; %d TCP connections from the worker; worker CPU %.2f s = %.1f µs per call; request→outcome p50 %.0f ms, p99 %.0f ms; %@",
                produced, accepted, api, seconds, Double(accepted) / seconds, Double(accepted) / seconds / quota * 100, quota,
                Double(throttled) / Double(max(attempts, 1)) * 100, attempts, connections, cpu, cpu * 1_000_000 / Double(max(accepted, 1)),
                outcomes.percentile(0.5), outcomes.percentile(0.99), shipped.description))
        Output.line(outcomes.resultsLine)
        for child in children.reversed() { await child.stop() }
        children.removeAll()
    }

    private static func number(_ value: Double) -> String { value == value.rounded() ? String(Int(value)) : NumberText.fixed(value, places: 1) }
}
