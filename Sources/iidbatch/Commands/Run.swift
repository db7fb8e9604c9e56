import ArgumentParser
import CommandSupport
import Foundation
import InstanceAPI
import Kafka
import Logging
import Metrics
import Pipeline
import Prometheus
import ServiceLifecycle
import Synchronization
import UnixSignals

/// `iidbatch run`: the workers of every pipeline file, until SIGINT or SIGTERM.
struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the workers of the pipelines in a folder (or one file) until SIGINT or SIGTERM.",
        discussion: """
            Each pipeline file (pipelines/*.yaml) names a request topic and consumer group, its \
            outcome and dead-letter topics, batching, concurrency, rate limit, retry policy and \
            backend. One worker per file joins its group; start more processes to scale out. On \
            SIGINT or SIGTERM each worker stops fetching, finishes in-flight work within its \
            drain-timeout (abandoning the rest, which is then delivered again), commits and exits 0. \
            Before its first request each worker reads the whole control topic (operator overrides, \
            see `iidbatch control`), then follows it and puts each new version in force at once. \
            Kafka client properties (SASL, TLS, tuning) come, lowest precedence first, from a \
            properties file (-F, as kcat's), \(KafkaSettings.environmentPrefix)* variables, and -X; --brokers or \
            $\(KafkaOptions.brokersVariable) set bootstrap.servers over them. The Firebase project of each \
            pipeline is its file's project:, else --project, else $\(ProjectChoice.environmentVariable), else \
            the credentials' own. Before the workers start it buys an access token: credentials the \
            token endpoint refuses (a revoked key, a workload identity without its binding) end the \
            start with 78, naming the refusal; an endpoint that does not answer within \
            \(Int(Run.tokenCheckTimeout / .seconds(1))) s is a warning, and the workers start.
            """
    )

    @Argument(help: "A folder of pipeline files, or one file.")
    var pipelines = "pipelines"

    @Option(
        help: ArgumentHelp(
            "A service-account key file (JSON). Default: as Google's libraries find credentials: $GOOGLE_APPLICATION_CREDENTIALS, then the metadata server ($GCE_METADATA_HOST or metadata.google.internal).",
            valueName: "key.json"))
    var credentials: String?

    @Option(
        help: ArgumentHelp(
            "The Firebase project the calls go to, for every pipeline whose file has no project:. Default: $\(ProjectChoice.environmentVariable), else the credentials' project.",
            valueName: "id"))
    var project: String?

    @Option(help: ArgumentHelp("Serve every backend API from this base URL (the emulator); default: Google's endpoints.", valueName: "url"))
    var backendURL: String?

    @OptionGroup var trust: TrustOptions

    @Option(help: "Log level: trace, debug, info, notice, warning, error.")
    var logLevel = "info"

    @Option(
        name: .customLong(LogFormat.optionName),
        help: "Log format: text, or json (Cloud Logging's structured form: one JSON object per line, every line the run writes, the last error too).")
    var logFormat = "text"

    @Option(help: "Serve /metrics (Prometheus), /livez, /healthz and /readyz on this port (default: off).")
    var httpPort: Int?

    @Option(help: ArgumentHelp("/readyz fails once a circuit breaker has been open this long.", valueName: "duration"))
    var readyBreakerGrace = DurationArgument(argument: "60s")!

    @OptionGroup var kafka: KafkaOptions

    @OptionGroup var control: ControlOptions

    func run() async throws {
        let onEventLoops = WorkerSetup.runTasksOnEventLoops()
        KafkaClients.keepLargeBuffers(environment: ProcessInfo.processInfo.environment)
        // Trapped from the first moment: a SIGINT or SIGTERM while the workers are being set up
        // stops them gracefully as soon as they run, instead of killing the process.
        let stopSignals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        try WorkerSetup.bootstrapLogging(logLevel, format: logFormat, linesAsLog: true)
        let registry = PrometheusCollectorRegistry()
        if httpPort != nil { MetricsSystem.bootstrap(DescribedMetricsFactory(registry: registry)) }
        if let project, let problem = ProjectID.problem(with: project) { throw ValidationError("--project: \(problem)") }
        let projectVariable = ProcessInfo.processInfo.environment[ProjectChoice.environmentVariable]
        if let projectVariable, !projectVariable.isEmpty, let problem = ProjectID.problem(with: projectVariable) {
            throw RuntimeError(.config, "$\(ProjectChoice.environmentVariable): \(problem)")
        }
        let pipelines: [PipelineConfiguration]
        do { pipelines = try PipelineFile.loadAll(self.pipelines) } catch { throw RuntimeError(ExitStatus(error), error.description) }
        let trustRoots = try trust.roots()
        let kafkaSettings = try self.kafka.settings()
        let kafka = WorkerSetup.logging(kafkaSettings.configuration)
        let source: CredentialSource
        do { source = try await ApplicationDefaultCredentials.find(explicitPath: credentials) } catch {
            throw RuntimeError(ExitStatus(unclassified: error), credentials == nil ? "\(error)" : "--credentials: \(error)")
        }
        Output.line("iidbatch run: credentials from \(source)")
        Output.line("iidbatch run: Kafka: \(kafkaSettings)")
        let projects = try pipelines.map { pipeline in
            guard
                let choice = ProjectChoice.resolve(
                    pipeline: pipeline.project, option: project, environment: projectVariable, credentials: source.projectID)
            else {
                throw RuntimeError(
                    .config,
                    "pipeline \(pipeline.name): no Firebase project: set project: in its file, --project or $\(ProjectChoice.environmentVariable), or use credentials that name one"
                )
            }
            if let problem = choice.problem {
                throw RuntimeError(.config, "pipeline \(pipeline.name): the project of the credentials from \(source): \(problem)")
            }
            return choice
        }
        // First contact, bounded by --timeout: a cluster that does not answer ends the run now,
        // by name. Once the workers run, they ride out broker outages instead.
        _ = try await self.kafka.timeout.reach(kafka, for: "starting the workers of \(pipelines.map(\.name).joined(separator: ", "))")
        // One client, one pool of connections and one token source; each pipeline calls through
        // a view of it that puts its own project in the URLs.
        if let trustRoots { Output.line("iidbatch run: trusting \(trustRoots) besides the system's roots") }
        let client = InstanceAPIClient(
            source: source,
            configuration: backendURL.map { .singleHost($0, extraTrustRoots: trustRoots) } ?? InstanceAPIConfiguration(extraTrustRoots: trustRoots))
        let logger = Logger(label: "iidbatch.run")
        try await checkCredentials(client, logger: logger)
        if !onEventLoops {
            logger.debug(
                "Swift tasks run on the default executor: NIO's event loops could not be installed as the global executor (a little more CPU per call, nothing else changes)"
            )
        }
        // The export topics of pipelines that list groups.export (one that takes any op leaves it
        // to the broker), and the control topic, which must exist before the workers start.
        let controlTopic = control.topic(kafka)
        await CompactedTopics.ensure(
            Set(pipelines.filter { $0.ops?.contains(.groupsExport) == true }.map(\.exportTopic) + [controlTopic.name]), configuration: kafka,
            logger: logger)
        // Fetch: the overrides in force, before any worker reads its first request.
        let snapshot: ControlSnapshot
        do { snapshot = try await controlTopic.fetch(timeout: self.kafka.timeout.duration) } catch {
            try? await client.shutdown()
            let failure = self.kafka.timeout.failure("reading the control topic \(controlTopic.name)", kafka, error)
            guard failure.status == .config else { throw failure }
            throw RuntimeError(.config, "\(failure). Create it with cleanup.policy=compact (or name another with --control-topic)")
        }
        for entry in snapshot.history {
            if case .refused = entry.change { logger.warning("control: \(controlTopic.name) offset \(entry.offset): \(entry.change)") }
        }
        let workers: [PipelineWorker]
        let producer: KafkaProducer
        do {
            // One producer for every pipeline of the process, sized for the largest record any sends.
            producer = try KafkaProducer(configuration: kafka.withDefaults(PipelineConfiguration.producerDefaults(for: pipelines)))
            workers = try pipelines.indices.map { index throws(KafkaError) in
                try PipelineWorker(
                    configuration: pipelines[index], consumer: kafka, producer: producer, client: client.forProject(projects[index].id),
                    control: snapshot.board.settings(for: pipelines[index]), wakes: WorkerSetup.eventLoopWakes())
            }
        } catch {
            try? await client.shutdown()
            throw RuntimeError(ExitStatus(unclassified: error), "cannot start the workers: \(error)")
        }
        for (pipeline, project) in zip(pipelines, projects) {
            Output.line(
                "iidbatch run: \(pipeline.name): \(pipeline.requestTopic) → \(pipeline.outcomeTopic) (dead letters: \(pipeline.deadLetterTopic)), group \(pipeline.group), project \(project)"
            )
            let projectless = pipeline.projectlessAPIs
            if !projectless.isEmpty, source.projectID != project.id {
                logger.warning(
                    "\(pipeline.name) calls \(projectless.map(\.rawValue).joined(separator: ", ")), whose calls name no project: Google acts on the credentials' project \(source.projectID), not \(project); run this pipeline with credentials of \(project.id)"
                )
            }
            if pipeline.senderID == nil, pipeline.apis.contains(where: { $0 == .deviceGroup || $0 == .groupExport }) {
                logger.warning(
                    "\(pipeline.name) calls the device-group API with project_id \(project.id); FCM documents the sender id there (the project number, Firebase console: Project settings, Cloud Messaging): set sender-id: in its file"
                )
            }
            let legacy = pipeline.turnedDownAPIs
            if !legacy.isEmpty {
                logger.warning(
                    "\(pipeline.name) calls \(legacy.map(\.rawValue).joined(separator: ", ")), which Google turns down on \(BackendAPI.turndownDate) (new projects cannot use them now); see \"Moving off the Instance ID API\" in the README"
                )
            }
        }
        let stops = WorkerStops(workers)
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: workers.map { worker in
                    let service = WorkerService(worker: worker, stops: stops)
                    return .init(
                        service: NamedService(name: "the worker of \(service)", base: service), successTerminationBehavior: .gracefullyShutdownGroup,
                        failureTerminationBehavior: .gracefullyShutdownGroup)
                } + [
                    .init(
                        service: NamedService(name: "the statistics reporter", base: StatisticsReporter(workers: workers, interval: .seconds(10))),
                        successTerminationBehavior: .ignore),
                    .init(
                        service: NamedService(
                            name: "the control listener on \(controlTopic.name)",
                            base: ControlService(topic: controlTopic, snapshot: snapshot, workers: workers)),
                        successTerminationBehavior: .ignore, failureTerminationBehavior: .gracefullyShutdownGroup),
                ]
                    + (httpPort.map { port in
                        [
                            .init(
                                service: NamedService(
                                    name: "the HTTP server on port \(port) (--http-port)",
                                    base: OperationsServer.make(port: port, workers: workers, registry: registry, breakerGrace: readyBreakerGrace.duration)),
                                // Not the default, cancelling the group: a worker cancelled
                                // in its first moments may not end; stopped gracefully, it
                                // drains, commits and ends (the test of a port in use hung).
                                failureTerminationBehavior: .gracefullyShutdownGroup)
                        ]
                    } ?? []),
                logger: logger))
        let relay = Task {
            for await signal in stopSignals {
                logger.notice("\(signal == .sigint ? "SIGINT" : "SIGTERM"): stopping gracefully")
                await group.triggerGracefulShutdown()
                return
            }
        }
        var failure: (any Error)?
        do { try await group.run() } catch { failure = error }
        relay.cancel()
        await producer.close(timeout: .seconds(5))
        var total = WorkerStatistics()
        for worker in workers { total.merge(await worker.currentStatistics()) }
        Output.line("iidbatch run: stopped after \(total.records) records, \(total.outcomeCount) outcomes, \(total.deadLetters) dead letters")
        try? await client.shutdown()
        if let failure { throw RuntimeError(ExitStatus(unclassified: failure), "iidbatch run: \(failure)") }
    }
}

extension Run {
    /// How long the start waits for a first access token.
    static let tokenCheckTimeout: Duration = .seconds(15)

    /// Buys a first access token before any worker starts, so that credentials the token endpoint
    /// refuses (a revoked or unknown key, a workload identity without its IAM binding) end the
    /// start at once, by name (78), not at the first request, hours later, as an open breaker. A
    /// token endpoint that does not answer within `tokenCheckTimeout`, or fails in a way that may
    /// pass, is only a warning: the workers start, and their calls wait for a token (the breaker
    /// holds them).
    func checkCredentials(_ client: InstanceAPIClient, logger: Logger) async throws {
        let tokens = client.tokens
        // The first of the answer and the timeout: a request still out at the timeout goes on
        // (its token, if it comes, is cached for the workers), but the start does not wait for it.
        let check = await withCheckedContinuation { (continuation: CheckedContinuation<TokenCheck?, Never>) in
            let waiting = Mutex<CheckedContinuation<TokenCheck?, Never>?>(continuation)
            let resume: @Sendable (TokenCheck?) -> Void = { result in waiting.withLock { $0.take() }?.resume(returning: result) }
            let timer = Task {
                try? await Task.sleep(for: Self.tokenCheckTimeout)
                resume(nil)
            }
            Task {
                let result = await tokens.check()
                timer.cancel()
                resume(result)
            }
        }
        switch check {
        case .ok:
            break
        case .refused(let reason):
            try? await client.shutdown()
            throw RuntimeError(.config, "the credentials were refused: \(reason)")
        case .unavailable(let reason):
            logger.warning("no access token yet (\(reason)); the workers start, and their calls wait for one")
        case nil:
            logger.warning("no access token within \(Self.tokenCheckTimeout); the workers start, and their calls wait for one")
        }
    }
}
