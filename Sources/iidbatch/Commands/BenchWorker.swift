import ArgumentParser
import Foundation
import Kafka
import Pipeline

/// `iidbatch bench worker`: the cost of the worker process alone, with the broker and the
/// emulator in processes of their own.
struct BenchWorker: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Measure one `iidbatch run` process alone: items/s, its CPU-seconds per million items, peak RSS, latency.",
        discussion: """
            Starts the embedded broker and the emulator as separate processes (or uses \
            --bootstrap and --backend-url ones), produces the requests up front, then runs one \
            `iidbatch run` child and reads the outcomes. Items/s counts from the first record the \
            worker received to the last outcome read. CPU is the child's user + system time (the \
            kernel's accounting getrusage reports, read from /proc) from its join to the last \
            outcome, per million items, with the system part of it in brackets (on loopback the \
            kernel charges a sender for the receiving side too); peak RSS is its VmHWM (ru_maxrss). Latency is each \
            request's receipt to its outcome, as the outcome records them. The broker's and the \
            emulator's CPU in the same window is printed beside the worker's when this bench \
            started them: they share the machine's cores, and what they spend shows in the \
            worker's figure. A last line counts the items by result code, as the outcomes report \
            them. Topic requests use --topic-backend (iid-batch: 1,000 tokens per call; fcm-v1: \
            one call per token); imports send 64-hex-digit APNs device tokens.
            """)

    @Option(
        parsing: .upToNextOption, help: ArgumentHelp("Shapes to measure: \(BenchShape.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "shape"))
    var shapes: [BenchShape] = BenchShape.allCases

    @Option(help: "Items per shape (requests = items / items per request).")
    var items = 1_000_000

    @Option(help: ArgumentHelp("Latency the emulator adds to every call, ms.", valueName: "ms"))
    var backendLatency = 0

    @Option(help: ArgumentHelp("The topic pipeline's backend: iid-batch or fcm-v1.", valueName: "backend"))
    var topicBackend = "iid-batch"

    @Option(help: "The pipeline's max-in-flight-items (default: iidbatch's default).")
    var maxInFlightItems: Int?

    @Option(help: "Partitions of the request topic (default: enough for the embedded broker to keep the whole backlog).")
    var partitions: Int?

    @Option(help: ArgumentHelp("Use this Kafka cluster instead of starting the embedded one.", valueName: "host:port"))
    var bootstrap: String?

    @Option(help: ArgumentHelp("Use this emulator (started with --write-key FILE) instead of starting one; needs --key.", valueName: "url"))
    var backendURL: String?

    @Option(help: ArgumentHelp("The service-account key the --backend-url emulator accepts.", valueName: "key.json"))
    var key: String?

    func validate() throws {
        guard (1_000...20_000_000).contains(items) else { throw ValidationError("--items must be 1,000...20,000,000, got \(items)") }
        guard TopicBackend(rawValue: topicBackend) != nil else { throw ValidationError("--topic-backend: '\(topicBackend)' is not iid-batch or fcm-v1") }
        guard (backendURL == nil) == (key == nil) else { throw ValidationError("--backend-url and --key go together") }
        guard backendLatency >= 0 else { throw ValidationError("--backend-latency must be 0 or more, got \(backendLatency)") }
    }

    func run() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("iidbatch-bench-worker-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let pool = (0..<50_000).map { String(format: "bench-token-%07d", $0) }
        let poolFile = folder.appendingPathComponent("tokens.txt")
        try pool.joined(separator: "\n").write(to: poolFile, atomically: true, encoding: .utf8)
        Output.line(
            "bench worker: \(items) items per shape, backend latency \(backendLatency) ms, topic backend \(topicBackend), release build: \(Self.isRelease)")
        // Stopped by a signal, the benchmark stops its children too instead of leaving them behind.
        let signals = Task {
            let signal = await Signals.waitForTermination()
            guard !Task.isCancelled else { return }
            await BenchChild.stopAll()
            try? FileManager.default.removeItem(at: folder)
            Output.line("bench worker: stopped on \(signal)")
            ProcessExit.now(130)
        }
        defer { signals.cancel() }
        for shape in shapes {
            try await measure(shape, folder: folder, pool: pool, poolFile: poolFile.path)
        }
    }

    private static var isRelease: Bool {
        #if DEBUG
            false
        #else
            true
        #endif
    }

    private func measure(_ shape: BenchShape, folder: URL, pool: [String], poolFile: String) async throws {
        let requests = items / shape.itemsPerRequest
        let partitions = self.partitions ?? max(4, requests * (shape.itemsPerRequest * 25 + 200) / (3 * 1_048_576) + 1)
        let topics = (
            requests: "bench.\(shape.rawValue).requests", outcomes: "bench.\(shape.rawValue).outcomes", deadLetters: "bench.\(shape.rawValue).dead-letters"
        )
        var children: [BenchChild] = []
        defer { for child in children { Task { await child.stop() } } }
        // The processes this bench started beside the worker, whose CPU in the same window is
        // printed too: on a small machine the worker shares its cores with them.
        var beside: [(name: String, child: BenchChild)] = []

        let brokers: String
        if let bootstrap {
            brokers = bootstrap
        } else {
            let broker = try BenchChild(
                "broker", ["broker", "--topic", "\(topics.requests):\(partitions)", "--topic", "\(topics.outcomes):4", "--topic", topics.deadLetters])
            children.append(broker)
            beside.append(("broker", broker))
            brokers = try await broker.line(startingWith: "bootstrap servers: ")
        }
        let baseURL: String
        let keyPath: String
        if let backendURL, let key {
            (baseURL, keyPath) = (backendURL, key)
        } else {
            keyPath = folder.appendingPathComponent("key.json").path
            let emulator = try BenchChild(
                "emulator",
                ["emulator", "--port", "0", "--write-key", keyPath, "--tokens", poolFile, "--installations", poolFile, "--latency", "\(backendLatency)"])
            children.append(emulator)
            beside.append(("emulator", emulator))
            let announced = try await emulator.line(startingWith: "iidbatch emulator: ")
            guard let at = announced.range(of: " at ") else { throw RuntimeError(.software, "the emulator said '\(announced)'") }
            baseURL = String(announced[at.upperBound...])
        }

        // The backlog, produced before the worker starts.
        var kafka = KafkaConfiguration(bootstrapServers: brokers)
        kafka.logHandler = { _, _ in }
        let producer = try KafkaProducer(configuration: kafka.withDefaults(["linger.ms": "20", "message.max.bytes": "10000000"]))
        // On the embedded broker (a topic made here, `partitions` wide) records are spread evenly,
        // so that no partition passes what it keeps; on another cluster the keys place them.
        let spread = bootstrap == nil ? Int32(partitions) : nil
        let produced = try await producer.sendInOrder(
            (0..<requests).lazy.map { number in
                let (key, request) = shape.request(number, pool: pool)
                return KafkaProducerRecord(
                    topic: topics.requests, key: Array(key.utf8), value: Array(request.jsonBody()), partition: spread.map { Int32(number) % $0 })
            })
        await producer.close()
        if bootstrap == nil {
            // A backlog the broker did not keep would leave the measurement waiting for outcomes
            // that never come: say so now instead.
            let backlog = try await KafkaTopicReader(configuration: kafka, topics: [topics.requests])
            let kept = backlog.remaining
            backlog.close()
            guard kept == Int64(produced) else {
                throw RuntimeError(
                    .config,
                    "the embedded broker kept \(kept) of the \(produced) request records (it keeps about 5 MiB per partition); raise --partitions above \(partitions)"
                )
            }
        }

        let pipelineFile = folder.appendingPathComponent("\(shape.rawValue).yaml").path
        try """
        request-topic: \(topics.requests)
        group: bench-\(shape.rawValue)-\(UUID().uuidString.prefix(6))
        outcome-topic: \(topics.outcomes)
        dead-letter-topic: \(topics.deadLetters)
        \(shape.op == .topicsSubscribe ? "backend: \(topicBackend)" : "")
        concurrency: \(shape.op == .topicsSubscribe && topicBackend == TopicBackend.fcmV1.rawValue ? 100 : 16)
        adaptive-rate: { start: 100000 }
        \(maxInFlightItems.map { "max-in-flight-items: \($0)" } ?? "")
        """.write(toFile: pipelineFile, atomically: true, encoding: .utf8)

        let reader = try await KafkaTopicReader(configuration: kafka, topics: [topics.outcomes], follow: true)
        defer { reader.close() }
        let callsBefore = try await EmulatorCallCount.read(baseURL: baseURL)
        let worker = try BenchChild(
            "worker", ["run", pipelineFile, "--brokers", brokers, "--credentials", keyPath, "--backend-url", baseURL, "--log-level", "warning"])
        children.append(worker)
        _ = try await worker.line(startingWith: "iidbatch run: \(shape.rawValue): ")
        let joined = worker.usage
        let besideJoined = beside.map { $0.child.usage }
        var latencies: [Double] = []
        latencies.reserveCapacity(requests)
        var firstReceived: Date?
        let decoder = Outcome.decoder()
        var peak = 0.0
        var results: [String: Int] = [:]
        for try await record in reader.records {
            guard let value = record.value, let outcome = try? decoder.decode(Outcome.self, from: Data(value)) else { continue }
            results.merge(outcome.counts, uniquingKeysWith: +)
            firstReceived = min(firstReceived ?? outcome.receivedAt, outcome.receivedAt)
            latencies.append(outcome.completedAt.timeIntervalSince(outcome.receivedAt))
            if latencies.count % 100 == 0 { peak = max(peak, worker.usage?.peakResidentMiB ?? 0) }
            if latencies.count == produced { break }
        }
        let finished = Date()
        let usage = worker.usage
        let besideCPU = zip(beside, besideJoined).map { side, before in (side.name, (side.child.usage?.cpuSeconds ?? 0) - (before?.cpuSeconds ?? 0)) }
        let calls = try await EmulatorCallCount.read(baseURL: baseURL).since(callsBefore)
        await worker.stop()
        let seconds = finished.timeIntervalSince(firstReceived ?? finished)
        let cpu = (usage?.cpuSeconds ?? 0) - (joined?.cpuSeconds ?? 0)
        let system = (usage?.systemSeconds ?? 0) - (joined?.systemSeconds ?? 0)
        latencies.sort()
        let millions = Double(produced * shape.itemsPerRequest) / 1_000_000
        func percentile(_ p: Double) -> Double { latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] * 1_000 }
        Output.line(
            String(
                format:
                    "%@: %d requests, %d items: %.0f items/s; worker CPU %.3f s (system %.3f) = %.3f CPU-s per million items; peak RSS %.0f MiB; request→outcome p50 %.0f ms, p99 %.0f ms; %d backend calls, %.0f items per call",
                shape.rawValue, produced, produced * shape.itemsPerRequest, Double(produced * shape.itemsPerRequest) / max(seconds, 0.001), cpu,
                system, cpu / millions, max(peak, usage?.peakResidentMiB ?? 0), percentile(0.5), percentile(0.99),
                calls.calls, Double(calls.items) / Double(max(calls.calls, 1))))
        if !besideCPU.isEmpty {
            Output.line(
                "  beside it, on the same \(ProcessInfo.processInfo.activeProcessorCount) cores in the same window: "
                    + besideCPU.map { String(format: "%@ %.3f", $0.0, $0.1 / millions) }.joined(separator: ", ") + " CPU-s per million items")
        }
        // What the items came to, so that a shape whose items all fail is not taken for a fast one.
        Output.line("  items by result: " + results.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        for child in children.reversed() { await child.stop() }
        children.removeAll()
    }
}
