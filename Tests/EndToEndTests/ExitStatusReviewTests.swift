import Emulator
import Foundation
import Kafka
import Pipeline
import Testing

/// The exit statuses the review of issue 32 found wrong: each failure ends with the status of its
/// cause (README's exit table), and the message names what to fix.
@Suite("iidbatch exit statuses: each failure by its cause")
struct ExitStatusReviewTests {
    /// Runs the binary with `arguments` to its exit.
    private func run(_ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:]) async throws -> (status: Int32, output: String) {
        let child = try await ChildProcess(try Programs.iidbatch, arguments, stdin: stdin, environment: environment)
        let status = try await child.waitForExit(seconds: 180)
        return (status, child.text)
    }

    @Test("a broken pipeline file that gives an omitted topic its default exits 78 (configuration) naming the file and the option, as run and control do")
    func brokenPipelineDefaults() async throws {
        let folder = try OperatorCommand.temporaryFolder("broken-defaults")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("p.yaml").path
        try "request-topic: [unclosed\n".write(toFile: file, atomically: true, encoding: .utf8)
        let nobody = try DeadBroker.closed()
        let commands: [(arguments: [String], option: String)] = [
            (["submit", "--op", "topics.subscribe", "--topic", "t", "-"], "--request-topic"),
            (["outcomes"], "--from"),
            (["reconcile", "--outcomes", "o"], "--requests"),
            (["reconcile", "--requests", "r"], "--outcomes"),
        ]
        for (arguments, option) in commands {
            let result = try await run(arguments + ["--pipelines", file, "--brokers", nobody.address], stdin: Data("tok-1\n".utf8))
            #expect(result.status == 78, "\(arguments): \(result.output)")
            #expect(result.output.contains(file) && result.output.contains(option), "\(arguments): \(result.output)")
            #expect(!result.output.contains(ExitCodeTests.usageMarker), "\(arguments): \(result.output)")
        }
        withExtendedLifetime(nobody) {}
    }

    @Test("no topic option and no pipelines/ folder where the command runs: a usage error (64) naming the option, not 78")
    func noDefaultPipelines() async throws {
        let folder = try OperatorCommand.temporaryFolder("no-pipelines")
        defer { try? FileManager.default.removeItem(at: folder) }
        let nobody = try DeadBroker.closed()
        for (arguments, option) in [(["outcomes"], "--from"), (["reconcile", "--outcomes", "o"], "--requests")] {
            let child = try await ChildProcess(try Programs.iidbatch, arguments + ["--brokers", nobody.address], directory: folder)
            let status = try await child.waitForExit(seconds: 120)
            #expect(status == 64, "\(arguments): \(child.text)")
            #expect(child.text.contains("\(option) is needed: there is no pipelines/ folder here"), "\(arguments): \(child.text)")
        }
        withExtendedLifetime(nobody) {}
    }

    @Test("submit to a topic the cluster does not have and does not create exits 78 naming the topic, not 69 'did not answer'")
    func submitToMissingTopic() async throws {
        let kafka = try EmbeddedKafka(brokers: 1)
        // The cluster answers for the topic as one with auto.create.topics.enable=false does:
        // UNKNOWN_TOPIC_OR_PARTITION.
        kafka.setTopicError("no-such-requests", .unknownTopicOrPartition)
        let result = try await OperatorCommand.run(
            [
                "submit", "--op", "topics.subscribe", "--topic", "t", "--request-topic", "no-such-requests",
                "--timeout", "2s", "-",
            ], brokers: kafka.bootstrapServers, stdin: Data("tok-1\n".utf8))
        #expect(result.status == 78, "\(result.output)")
        #expect(result.output.contains("has no topic no-such-requests"), "\(result.output)")
        #expect(!result.output.contains("did not answer"), "the cluster answered: \(result.output)")
    }

    @Test("replay to a topic the cluster does not have and does not create exits 78 naming the topic")
    func replayToMissingTopic() async throws {
        let kafka = try EmbeddedKafka(brokers: 1)
        try kafka.createTopic("replay-dead-letters", partitions: 1)
        kafka.setTopicError("gone-requests", .unknownTopicOrPartition)
        let request = PipelineRequest(id: "gone-1", op: .topicsSubscribe, target: .topic("t"), items: ["tok-1"])
        let headers = [
            KafkaHeader(key: DeadLetterHeader.kind, string: DeadLetter.Kind.retryExhausted.rawValue),
            KafkaHeader(key: DeadLetterHeader.originalTopic, string: "gone-requests"),
        ]
        let producer = try KafkaProducer(configuration: kafka.configuration())
        _ = try await producer.send(topic: "replay-dead-letters", key: nil, value: Array(request.jsonBody()), headers: headers)
        await producer.close()
        let result = try await OperatorCommand.run(
            ["replay", "--from", "replay-dead-letters", "--timeout", "2s", "--include-cancelled"], brokers: kafka.bootstrapServers)
        #expect(result.status == 78, "\(result.output)")
        #expect(result.output.contains("has no topic gone-requests"), "\(result.output)")
        // Without --include-cancelled it first needs the control topic, which this cluster lacks.
        let unchecked = try await OperatorCommand.run(["replay", "--from", "replay-dead-letters", "--timeout", "2s"], brokers: kafka.bootstrapServers)
        #expect(unchecked.status == 78 && unchecked.output.contains("control topic iidbatch.control"), "\(unchecked.output)")
    }

    @Test("an Excel ';' file submitted as CSV with the default delimiter and column exits 65 with the option to try, before any broker is asked")
    func wrongDelimiter() async throws {
        let nobody = try DeadBroker.closed()
        let result = try await run(
            ["submit", "--op", "topics.subscribe", "--topic", "t", "--request-topic", "r", "--format", "csv", "--brokers", nobody.address, "-"],
            stdin: Data("token;name\r\nabc;Bob\r\n".utf8))
        #expect(result.status == 65, "\(result.output)")
        #expect(result.output.contains("try --csv-delimiter ';'"), "\(result.output)")
        #expect(!result.output.contains(nobody.address), "the input is judged before any broker is asked: \(result.output)")
    }

    @Test("run whose --http-port is taken exits 69 (a supervisor tries again) naming the HTTP server and the port, not 70 'a worker stopped itself'")
    func httpPortTaken() async throws {
        try await withPipelineFixture(partitions: 1) { fixture in
            let folder = try RunFolder(fixture, name: "port-taken")
            defer { folder.remove() }
            let pipeline = try folder.pipeline(fixture, group: "port-taken-workers")
            let taken = try DeadBroker.silent()  // a listening socket holds the port
            let port = taken.address.split(separator: ":").last.map(String.init) ?? ""
            let result = try await run(folder.runArguments(fixture, pipeline: pipeline, ["--http-port", port, "--log-level", "warning"]))
            #expect(result.status == 69, "\(result.output)")
            #expect(result.output.contains("the HTTP server on port \(port) (--http-port)"), "\(result.output)")
            #expect(result.output.contains("in use"), "\(result.output)")
            #expect(!result.output.contains("a worker stopped itself"), "\(result.output)")
            withExtendedLifetime(taken) {}
        }
    }

    @Test("a missing key file exits 66 whether --credentials or GOOGLE_APPLICATION_CREDENTIALS names it")
    func missingKeyFile() async throws {
        let folder = try OperatorCommand.temporaryFolder("missing-key")
        defer { try? FileManager.default.removeItem(at: folder) }
        let pipeline = folder.appendingPathComponent("p.yaml").path
        try "request-topic: r\ngroup: g\noutcome-topic: o\ndead-letter-topic: d\n".write(toFile: pipeline, atomically: true, encoding: .utf8)
        let nowhere = ["GCE_METADATA_HOST": "127.0.0.1:1"]
        let flag = try await run(
            ["run", pipeline, "--credentials", "/missing.json", "--brokers", "127.0.0.1:1"],
            environment: nowhere.merging(["GOOGLE_APPLICATION_CREDENTIALS": ""]) { $1 })
        let variable = try await run(
            ["run", pipeline, "--brokers", "127.0.0.1:1"], environment: nowhere.merging(["GOOGLE_APPLICATION_CREDENTIALS": "/missing.json"]) { $1 })
        for result in [flag, variable] {
            #expect(result.status == 66, "\(result.output)")
            #expect(result.output.contains("/missing.json"), "\(result.output)")
        }
    }
}
