import ArgumentParser
import CommandSupport
import Emulator
import Foundation
import InstanceAPI
import Kafka
import Logging
import Pipeline

/// `iidbatch demo` (`make demo`): the whole system on loopback, with faults, ending by itself.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the pipelines end to end on an embedded broker and the emulator, then print a summary.",
        discussion: """
            Starts an embedded Kafka cluster and the backend emulator (2 % INTERNAL item errors, a \
            quota on batchImport, latency, a 3-second outage), creates the topics, seeds the \
            emulator, runs one worker per pipeline file and submits a mixed workload while they \
            run: about 100k topic changes, 10k deletions, 5k APNs imports, 300 device-group \
            changes (times --scale) and malformed records of every kind. It ends when every \
            request has an outcome and prints outcomes by op and code, items/s, retries, dead \
            letters and a reconciliation line. Exit status 1 when any request was lost.
            """
    )

    @Option(help: "Workload size relative to the default mix.")
    var scale = 1.0

    @Option(help: "The folder of pipeline files to run.")
    var pipelines = "pipelines"

    @Option(help: "Partitions of each request topic.")
    var partitions = 8

    @Option(help: ArgumentHelp("Give up waiting for outcomes after this many seconds.", valueName: "seconds"))
    var timeout = 600.0

    @Flag(help: "Switch the emulator's faults off.")
    var noFaults = false

    @Option(help: "Log level of the workers: trace, debug, info, notice, warning, error.")
    var logLevel = "warning"

    @Option(name: .customLong(LogFormat.optionName), help: "Log format of the workers: text or json.")
    var logFormat = "text"

    func validate() throws {
        guard scale > 0, scale <= 10 else { throw ValidationError("--scale must be in (0, 10], got \(scale)") }
        guard (1...64).contains(partitions) else { throw ValidationError("--partitions must be 1...64, got \(partitions)") }
    }

    func run() async throws {
        try WorkerSetup.bootstrapLogging(logLevel, format: logFormat)
        let files: [PipelineConfiguration]
        do { files = try PipelineFile.loadAll(pipelines) } catch { throw RuntimeError(ExitStatus(error), error.description) }
        let byOp = try Self.pipelineTopics(files)

        // 1. The embedded broker and the emulator.
        let kafka = try EmbeddedKafka(brokers: 1)
        for topic in Set(files.map(\.requestTopic)) { try kafka.createTopic(topic, partitions: partitions) }
        for topic in Set(files.flatMap { [$0.outcomeTopic, $0.deadLetterTopic] }) { try kafka.createTopic(topic, partitions: partitions) }
        let emulator = try await EmulatorServer.start(EmulatorConfiguration())
        let workload = DemoWorkload(scale: scale, topics: byOp)
        emulator.backend.seed(SeedRequest(tokens: workload.tokens, installations: workload.installations))
        let faults =
            noFaults
            ? FaultPlan()
            : FaultPlan(
                itemErrors: ["INTERNAL": 0.02], quota: ["iid.batchImport": 20], latencyMilliseconds: 1, jitterMilliseconds: 4,
                outages: [.init(startSeconds: 10, durationSeconds: 3)])
        try emulator.backend.setFaults(faults)
        Output.line("iidbatch demo: Kafka at \(kafka.bootstrapServers), emulator at \(emulator.baseURL)")
        if !noFaults { Output.line("faults: 2 % INTERNAL items, batchImport quota 20/s, 1-5 ms latency, every call 503 from 10 s to 13 s") }

        // 2. One worker per pipeline, and a reader of outcomes.
        let credentials = try ServiceAccountCredentials(json: emulator.backend.makeServiceAccountKey(tokenURI: emulator.baseURL + "/token"))
        let client = InstanceAPIClient(credentials: credentials, configuration: .singleHost(emulator.baseURL))
        let workers = try files.map { file throws(KafkaError) in
            try PipelineWorker(
                configuration: file, consumer: WorkerSetup.logging(kafka.consumerConfiguration()), producer: WorkerSetup.logging(kafka.configuration()),
                client: client, wakes: WorkerSetup.eventLoopWakes())
        }
        let collector = try OutcomeCollector(
            configuration: WorkerSetup.logging(kafka.consumerConfiguration()), outcomeTopics: files.map(\.outcomeTopic),
            deadLetterTopics: files.map(\.deadLetterTopic))
        for record in workload.records { if let id = record.id { collector.expect(id) } }

        let started = ContinuousClock.now
        var lost = 0
        await withTaskGroup(of: Void.self) { group in
            for worker in workers { group.addTask { await worker.run() } }
            group.addTask { await collector.run() }
            // 3. Submit while the workers run.
            Output.line("submitting \(workload.records.count) records (\(workload.validItems) items) to \(files.count) pipelines")
            do {
                try await DemoSubmitter.submit(workload.records, configuration: WorkerSetup.logging(kafka.configuration()), collector: collector)
            } catch {
                Output.error("iidbatch demo: submitting failed: \(error)")
            }
            lost = await Self.waitForOutcomes(collector, started: started, timeout: .seconds(timeout))
            for worker in workers { await worker.shutdown() }
            await collector.close()
        }
        let elapsed = collector.lastOutcome - started
        var statistics = WorkerStatistics()
        for worker in workers { statistics.merge(await worker.currentStatistics()) }
        DemoSummary(
            reconciliation: collector.reconciliation, statistics: statistics, deadLetters: collector.deadLetters,
            emulator: emulator.backend.stats, elapsed: elapsed, validItems: workload.validItems
        ).print()
        try? await client.shutdown()
        await emulator.shutdown()
        kafka.shutdown()
        if lost > 0 { throw ExitCode(1) }
    }

    /// The request topic of the pipeline serving each kind of work.
    private static func pipelineTopics(_ files: [PipelineConfiguration]) throws -> (changes: String, deletions: String, imports: String, groups: String) {
        func topic(_ op: RequestOp) throws -> String {
            guard let file = PipelineConfiguration.pipeline(for: op, in: files) else {
                throw RuntimeError(.config, "the demo needs a pipeline file that takes \(op.rawValue); found \(files.map(\.name).joined(separator: ", "))")
            }
            return file.requestTopic
        }
        return (try topic(.topicsSubscribe), try topic(.installationsDelete), try topic(.apnsImport), try topic(.groupsCreate))
    }

    /// Waits until every request has an outcome, printing progress; returns how many have none.
    private static func waitForOutcomes(_ collector: OutcomeCollector, started: ContinuousClock.Instant, timeout: Duration) async -> Int {
        var lastPrint = ContinuousClock.now
        while true {
            let reconciliation = collector.reconciliation
            if reconciliation.isComplete {
                // A moment more, so a repeated outcome would be seen too.
                try? await Task.sleep(for: .milliseconds(500))
                return 0
            }
            if ContinuousClock.now - started > timeout {
                Output.error("iidbatch demo: gave up after \(timeout): \(reconciliation.missing.count) requests have no outcome")
                return reconciliation.missing.count
            }
            if ContinuousClock.now - lastPrint >= .seconds(2) {
                lastPrint = .now
                Output.line(
                    "  outcomes \(reconciliation.answered)/\(reconciliation.expected.count) after \((ContinuousClock.now - started).formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 1))))"
                )
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }
}
