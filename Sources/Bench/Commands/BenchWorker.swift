import ArgumentParser
import CommandSupport
import Foundation
import InstanceAPI
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
            `iidbatch run` child and reads the outcomes. The emulator speaks plain HTTP/1.1, or \
            HTTPS with HTTP/2 with --tls, as the worker meets Google's front end. Each shape runs the pipeline file users \
            run, from --pipelines: topics-* topic-changes.yaml, deletions-3 deletions.yaml, \
            imports-100 apns-imports.yaml, unchanged but for its topic and group names; an \
            override (--topic-backend, --max-in-flight-items) is named in the shape's line. \
            Items are real-size: FCM registration tokens of 163 characters, installation ids of \
            22, APNs device tokens of 64 hex digits; the emulator is seeded with them. Items/s counts from the first record the \
            worker received to the last outcome read. CPU is the child's user + system time (the \
            kernel's accounting getrusage reports, read from /proc) from its join to the last \
            outcome, per million items, with the system part of it in brackets (on loopback the \
            kernel charges a sender for the receiving side too); peak RSS is its VmHWM (ru_maxrss). Latency is each \
            request's receipt to its outcome, as the outcome records them. The broker's and the \
            emulator's CPU in the same window is printed beside the worker's when this bench \
            started them: they share the machine's cores, and what they spend shows in the \
            worker's figure. A last line counts the items by result code, as the outcomes report \
            them.
            """)

    @Option(
        parsing: .upToNextOption, help: ArgumentHelp("Shapes to measure: \(BenchShape.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "shape"))
    var shapes: [BenchShape] = BenchShape.allCases

    @Option(help: "Items per shape (requests = items / items per request).")
    var items = 1_000_000

    @Option(help: ArgumentHelp("Latency the emulator adds to every call, ms.", valueName: "ms"))
    var backendLatency = 0

    @Option(help: ArgumentHelp("Override the topic pipeline's backend: iid-batch or fcm-v1 (default: the shipped file's).", valueName: "backend"))
    var topicBackend: String?

    @Option(help: "Override the pipeline's max-in-flight-items (default: the shipped file's).")
    var maxInFlightItems: Int?

    @Flag(
        help: """
            Serve the emulator over HTTPS with HTTP/2 (a self-signed certificate the worker trusts by \
            --ca-file), as Google's front end is met in the field; the default is plain HTTP/1.1.
            """)
    var tls = false

    @Option(help: ArgumentHelp("The folder of the shipped pipeline files each shape runs.", valueName: "dir"))
    var pipelines = "pipelines"

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
        if let topicBackend, TopicBackend(rawValue: topicBackend) == nil {
            throw ValidationError("--topic-backend: '\(topicBackend)' is not \(TopicBackend.allCases.map(\.rawValue).joined(separator: " or "))")
        }
        if let maxInFlightItems, !ControlKey.maxInFlightItemsRange.contains(maxInFlightItems) {
            throw ValidationError("--max-in-flight-items must be within \(ControlKey.maxInFlightItemsRange), got \(maxInFlightItems)")
        }
        guard (backendURL == nil) == (key == nil) else { throw ValidationError("--backend-url and --key go together") }
        guard !(tls && backendURL != nil) else { throw ValidationError("--tls starts an emulator of its own: it does not go with --backend-url") }
        guard backendLatency >= 0 else { throw ValidationError("--backend-latency must be 0 or more, got \(backendLatency)") }
    }

    /// Items of each kind the requests draw from in turn, and the emulator is seeded with.
    static let poolSize = 50_000

    func run() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("iidbatch-bench-worker-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let pools = BenchShape.Pools(count: Self.poolSize)
        let seed = (tokens: folder.appendingPathComponent("tokens.txt"), installations: folder.appendingPathComponent("installations.txt"))
        try pools.registrationTokens.joined(separator: "\n").write(to: seed.tokens, atomically: true, encoding: .utf8)
        try pools.installationIDs.joined(separator: "\n").write(to: seed.installations, atomically: true, encoding: .utf8)
        Output.line(
            "bench worker: \(items) items per shape, backend latency \(backendLatency) ms\(tls ? " over HTTPS + HTTP/2" : ""), pipelines from \(pipelines)/, release build: \(Self.isRelease)"
        )
        // Stopped by a signal, the benchmark stops its children too instead of leaving them behind.
        let signals = BenchChild.stopAllOnSignal("bench worker", removing: folder)
        defer { signals.cancel() }
        for shape in shapes {
            try await measure(shape, folder: folder, pools: pools, seed: (seed.tokens.path, seed.installations.path))
        }
    }

    static var isRelease: Bool {
        #if DEBUG
            false
        #else
            true
        #endif
    }

    /// The overrides asked for, for `shape`'s pipeline file.
    private func overrides(for shape: BenchShape) -> [(key: String, value: String)] {
        var overrides: [(key: String, value: String)] = []
        if let topicBackend, shape.op == .topicsSubscribe { overrides.append(("backend", topicBackend)) }
        if let maxInFlightItems { overrides.append(("max-in-flight-items", "\(maxInFlightItems)")) }
        return overrides
    }

    private func measure(_ shape: BenchShape, folder: URL, pools: BenchShape.Pools, seed: (tokens: String, installations: String)) async throws {
        let shipped = try BenchShippedPipeline(
            path: (pipelines as NSString).appendingPathComponent(shape.shippedFile), prefix: "bench-\(shape.rawValue)-\(UUID().uuidString.prefix(6))",
            overrides: overrides(for: shape))
        let pipeline = shipped.configuration
        guard pipeline.takes(shape.op) else {
            throw RuntimeError(.config, "\(shipped.source) does not take \(shape.op.rawValue), which \(shape.rawValue) sends")
        }
        let requests = items / shape.itemsPerRequest
        let partitions =
            self.partitions ?? BenchBacklog.partitions(requests: requests, bytesPerRequest: shape.request(0, pools: pools).request.jsonBody().count)
        var children: [BenchChild] = []
        defer { for child in children { Task { await child.stop() } } }
        // The processes this bench started beside the worker, whose CPU in the same window is
        // printed too: on a small machine the worker shares its cores with them.
        var beside: [(name: String, child: BenchChild)] = []

        let brokers: String
        if let bootstrap {
            brokers = bootstrap
        } else {
            let (broker, servers) = try await BenchChild.broker(
                topics: ["\(pipeline.requestTopic):\(partitions)", "\(pipeline.outcomeTopic):4"]
                    + (pipeline.deadLetterTopic == pipeline.outcomeTopic ? [] : [pipeline.deadLetterTopic]))
            children.append(broker)
            beside.append(("broker", broker))
            brokers = servers
        }
        let baseURL: String
        let keyPath: String
        let certificate = tls ? try BenchTLS(in: folder) : nil
        if let backendURL, let key {
            (baseURL, keyPath) = (backendURL, key)
        } else {
            keyPath = folder.appendingPathComponent("key.json").path
            let (emulator, url) = try await BenchChild.emulator(
                ["--port", "0", "--write-key", keyPath, "--tokens", seed.tokens, "--installations", seed.installations, "--latency", "\(backendLatency)"]
                    + (certificate?.emulatorArguments ?? []))
            children.append(emulator)
            beside.append(("emulator", emulator))
            baseURL = url
        }

        // The backlog, produced before the worker starts.
        var kafka = KafkaConfiguration(bootstrapServers: brokers)
        kafka.logHandler = { _, _ in }
        let produced = try await BenchBacklog.produce(
            shape, requests: requests, pools: pools, topic: pipeline.requestTopic, kafka: kafka, spread: bootstrap == nil ? partitions : nil)

        let pipelineFile = try shipped.write(in: folder.appendingPathComponent(shape.rawValue))
        let reader = try await KafkaTopicReader(configuration: kafka, topics: [pipeline.outcomeTopic], follow: true)
        defer { reader.close() }
        // Over HTTPS, each stats read is a client of its own that trusts the certificate.
        let callCount = { () async throws -> EmulatorCallCount in
            if let certificate { EmulatorCallCount(try await certificate.stats(baseURL: baseURL)) } else { try await EmulatorCallCount.read(baseURL: baseURL) }
        }
        let callsBefore = try await callCount()
        let worker = try await BenchChild(
            "worker",
            ["run", pipelineFile, "--brokers", brokers, "--credentials", keyPath, "--backend-url", baseURL, "--log-level", "warning"]
                + (certificate?.workerArguments ?? []))
        children.append(worker)
        _ = try await worker.line(startingWith: "iidbatch run: \(pipeline.name): ")
        let joined = worker.usage
        let besideJoined = beside.map { $0.child.usage }
        let outcomes = try await BenchOutcomes.read(reader, count: produced, worker: worker)
        let usage = worker.usage
        let besideCPU = zip(beside, besideJoined).map { side, before in (side.name, (side.child.usage?.cpuSeconds ?? 0) - (before?.cpuSeconds ?? 0)) }
        let calls = try await callCount().since(callsBefore)
        await worker.stop()
        let cpu = (usage?.cpuSeconds ?? 0) - (joined?.cpuSeconds ?? 0)
        let system = (usage?.systemSeconds ?? 0) - (joined?.systemSeconds ?? 0)
        let itemCount = produced * shape.itemsPerRequest
        let millions = Double(itemCount) / 1_000_000
        Output.line(
            String(
                format:
                    "%@: %d requests, %d items: %.0f items/s; worker CPU %.3f s (system %.3f) = %.3f CPU-s per million items, %.1f µs per call; peak RSS %.0f MiB; request→outcome p50 %.0f ms, p99 %.0f ms; %d backend calls, %.0f items per call; %@",
                shape.rawValue, produced, itemCount, Double(itemCount) / max(outcomes.seconds, 0.001), cpu, system, cpu / millions,
                cpu * 1_000_000 / Double(max(calls.calls, 1)), max(outcomes.peakMiB, usage?.peakResidentMiB ?? 0), outcomes.percentile(0.5),
                outcomes.percentile(0.99), calls.calls, Double(calls.items) / Double(max(calls.calls, 1)),
                (tls ? "over HTTPS + HTTP/2; " : "") + shipped.description))
        if !besideCPU.isEmpty {
            Output.line(
                "  beside it, on the same \(ProcessInfo.processInfo.activeProcessorCount) cores in the same window: "
                    + besideCPU.map { "\($0.0) \(NumberText.fixed($0.1 / millions, places: 3))" }.joined(separator: ", ") + " CPU-s per million items")
        }
        Output.line(outcomes.resultsLine)
        for child in children.reversed() { await child.stop() }
        children.removeAll()
    }
}
