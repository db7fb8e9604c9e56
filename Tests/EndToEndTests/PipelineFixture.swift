import Emulator
import Foundation
import InstanceAPI
import Kafka
import Pipeline
import TestSupport

/// An embedded Kafka cluster and an emulator, both on loopback sockets, with a reader of the
/// outcome and dead-letter topics running from the start: the world a worker runs in.
final class PipelineFixture: Sendable {
    let kafka: EmbeddedKafka
    let emulator: EmulatorServer
    let client: InstanceAPIClient
    let keyJSON: Data
    /// The fixture's topics, named for it alone: a client of an earlier fixture still retrying its
    /// bootstrap address can reach a new cluster that got the same ephemeral port, and a producer's
    /// metadata request auto-creates its topics there (a clean-clone CI run failed creating
    /// "requests": TOPIC_ALREADY_EXISTS).
    let requestTopic: String
    let outcomeTopic: String
    let deadLetterTopic: String
    let exportTopic: String
    private let collected = Observed(Collected())
    private let reader: KafkaConsumer
    private let readerTask: Task<Void, Never>

    var backend: EmulatorBackend { emulator.backend }

    private init(kafka: EmbeddedKafka, emulator: EmulatorServer, partitions: Int) throws {
        self.kafka = kafka
        self.emulator = emulator
        let suffix = UUID().uuidString.prefix(8).lowercased()
        requestTopic = "requests-\(suffix)"
        outcomeTopic = "outcomes-\(suffix)"
        deadLetterTopic = "dead-letters-\(suffix)"
        exportTopic = "group-exports-\(suffix)"
        // Everything that may throw comes before the client: one dropped running stops the process.
        for topic in [requestTopic, outcomeTopic, deadLetterTopic, exportTopic] { try kafka.createTopic(topic, partitions: partitions) }
        // The control and batch topics keep the names every command defaults to: one a stray
        // client auto-created (see `requestTopic`) is taken as it is.
        for spec in [ControlTopic.embeddedSpec, BatchTopic.embeddedSpec] { try kafka.createTopicIfAbsent(spec) }
        keyJSON = try emulator.backend.makeServiceAccountKey(tokenURI: emulator.baseURL + "/token")
        let credentials = try ServiceAccountCredentials(json: keyJSON)
        let reader = try KafkaConsumer(configuration: kafka.consumerConfiguration(), groupID: "test-reader", topics: [outcomeTopic, deadLetterTopic])
        client = InstanceAPIClient(credentials: credentials, configuration: .singleHost(emulator.baseURL))
        self.reader = reader
        let collected = self.collected
        let outcomeTopic = self.outcomeTopic
        readerTask = Task {
            let decoder = Outcome.decoder()
            do {
                for try await event in reader.events {
                    guard case .record(let record) = event else { continue }
                    if record.topic == outcomeTopic {
                        guard let outcome = try? decoder.decode(Outcome.self, from: Data(record.value ?? [])) else { continue }
                        collected.update { $0.outcomes.append(outcome) }
                    } else {
                        collected.update { $0.deadLetters.append(record) }
                    }
                }
            } catch {}
        }
    }

    /// Starts both, with `faults` in the emulator and `partitions` per topic.
    static func start(
        partitions: Int = 4, faults: FaultPlan = FaultPlan(), kafkaPort: Int? = nil, emulator configure: (inout EmulatorConfiguration) -> Void = { _ in }
    ) async throws -> PipelineFixture {
        let kafka = try EmbeddedKafka(brokers: 1, port: kafkaPort)
        var configuration = EmulatorConfiguration(seed: 7, faults: faults)
        configure(&configuration)
        let emulator = try await EmulatorServer.start(configuration)
        return try PipelineFixture(kafka: kafka, emulator: emulator, partitions: partitions)
    }

    /// The pipeline of a shipped file (`pipelines/NAME.yaml`) as it is, but on the fixture's topics
    /// and group.
    func shippedPipeline(_ name: String) throws -> PipelineConfiguration {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL
        var pipeline = try PipelineFile.load(repository.appendingPathComponent("pipelines/\(name).yaml").path)
        pipeline.requestTopic = requestTopic
        pipeline.outcomeTopic = outcomeTopic
        pipeline.deadLetterTopic = deadLetterTopic
        pipeline.exportTopic = exportTopic
        pipeline.group = "workers"
        return pipeline
    }

    /// A pipeline on the fixture's topics, quick to retry and to linger, adjusted by `adjust`.
    func pipeline(_ adjust: (inout PipelineConfiguration) -> Void = { _ in }) -> PipelineConfiguration {
        var pipeline = PipelineConfiguration(
            name: "test", requestTopic: requestTopic, group: "workers", outcomeTopic: outcomeTopic, deadLetterTopic: deadLetterTopic,
            exportTopic: exportTopic, linger: .milliseconds(20), concurrency: 8,
            retry: RetryPolicy(maxAttempts: 8, initialBackoff: .milliseconds(20), maxBackoff: .milliseconds(300), maxElapsed: .seconds(60)),
            drainTimeout: .seconds(10), breakerCooldown: .milliseconds(200), breakerMaxCooldown: .seconds(1))
        pipeline.adaptiveRate.start = 200  // quick to start; the adaptive-rate tests set their own
        adjust(&pipeline)
        return pipeline
    }

    /// A worker running `pipeline` in this process.
    func startWorker(_ pipeline: PipelineConfiguration) throws -> RunningWorker {
        let worker = try PipelineWorker(configuration: pipeline, consumer: kafka.consumerConfiguration(), producer: kafka.configuration(), client: client)
        return RunningWorker(worker: worker, task: Task { await worker.run() })
    }

    /// Produces `requests` in order (each send awaited), keyed by their ordering key.
    @discardableResult
    func submit(_ requests: [PipelineRequest], key: (PipelineRequest) -> String = PipelineFixture.key) async throws -> [KafkaDeliveryReport] {
        try await produce(requests.map { (key($0), Array($0.jsonBody())) })
    }

    /// Produces raw records in order to the request topic.
    @discardableResult
    func produce(_ records: [(key: String, value: [UInt8])], topic: String? = nil) async throws -> [KafkaDeliveryReport] {
        let producer = try KafkaProducer(configuration: kafka.configuration())
        var reports: [KafkaDeliveryReport] = []
        for record in records {
            reports.append(try await producer.send(topic: topic ?? requestTopic, key: Array(record.key.utf8), value: record.value))
        }
        await producer.close()
        return reports
    }

    /// The usual record key: the topic or group name, else the id.
    static func key(_ request: PipelineRequest) -> String {
        switch request.target {
        case .topic(let name): name
        case .group(let name, _): name
        default: request.id
        }
    }

    /// Outcomes read so far.
    var outcomes: [Outcome] { collected.value.outcomes }

    /// Dead letters read so far.
    var deadLetters: [KafkaRecord] { collected.value.deadLetters }

    /// Waits until `condition` holds of the outcomes and dead letters read, checking it after each
    /// record read; throws after `timeout` (against hangs only) naming `what`.
    @discardableResult
    func waitForRead(
        _ what: @escaping @Sendable (Collected) -> String, timeout: Duration = .seconds(120),
        until condition: @escaping @Sendable (Collected) -> Bool
    ) async throws -> Collected {
        try await collected.wait(timeout: timeout, until: condition, orThrow: { FixtureFailure("timed out waiting for \(what($0))") })
    }

    /// Waits until outcomes for every id in `ids` were read; returns the latest outcome per id.
    func waitForOutcomes(_ ids: some Collection<String>, timeout: Duration = .seconds(180)) async throws -> [String: Outcome] {
        let wanted = Set(ids)
        @Sendable func latest(_ read: Collected) -> [String: Outcome] {
            var latest: [String: Outcome] = [:]
            for outcome in read.outcomes where wanted.contains(outcome.requestID) { latest[outcome.requestID] = outcome }
            return latest
        }
        let read = try await waitForRead(
            { read in
                let missing = wanted.subtracting(latest(read).keys)
                return "outcomes: \(missing.count) of \(wanted.count) missing, e.g. \(missing.sorted().prefix(5))"
            }, timeout: timeout, until: { latest($0).count == wanted.count })
        return latest(read)
    }

    /// Waits until at least `count` dead letters were read.
    func waitForDeadLetters(_ count: Int, timeout: Duration = .seconds(60)) async throws -> [KafkaRecord] {
        try await waitForRead({ "\(count) dead letters (\($0.deadLetters.count) read)" }, timeout: timeout, until: { $0.deadLetters.count >= count })
            .deadLetters
    }

    /// Seeds registration tokens `prefix-0…`.
    func seedTokens(_ count: Int, prefix: String) -> [String] {
        let tokens = (0..<count).map { "\(prefix)-\($0)" }
        backend.seed(SeedRequest(tokens: tokens))
        return tokens
    }

    func stop() async {
        try? await reader.close()
        await readerTask.value
        try? await client.shutdown()
        await emulator.shutdown()
        kafka.shutdown()
    }
}

/// A worker and the task running it.
struct RunningWorker: Sendable {
    let worker: PipelineWorker
    let task: Task<Void, Never>

    /// Stops it gracefully and waits for `run()` to return.
    func stop() async {
        await worker.shutdown()
        await task.value
    }
}

/// Runs `body` with a started fixture and always stops it.
func withPipelineFixture<T>(
    partitions: Int = 4, faults: FaultPlan = FaultPlan(), kafkaPort: Int? = nil, emulator: (inout EmulatorConfiguration) -> Void = { _ in },
    _ body: (PipelineFixture) async throws -> T
) async throws -> T {
    let fixture = try await PipelineFixture.start(partitions: partitions, faults: faults, kafkaPort: kafkaPort, emulator: emulator)
    return try await withStarted(fixture, stop: { await $0.stop() }, body)
}
