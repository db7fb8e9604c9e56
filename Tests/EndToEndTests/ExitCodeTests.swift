import Emulator
import Foundation
import Testing

/// The exit statuses of the `iidbatch` binary (sysexits): a usage mistake is 64 with usage help;
/// bad input data 65; an input file that cannot be read 66; a Kafka cluster that does not
/// answer within `--timeout` 69, naming the brokers, without usage help.
@Suite("iidbatch exit statuses")
struct ExitCodeTests {
    /// What ArgumentParser prints before the usage line of a usage error.
    static let usageMarker = "Usage: iidbatch"

    /// A folder with one pipeline file and a service-account key `run` can load.
    private struct Setup {
        let folder: URL
        var pipeline: String { folder.appendingPathComponent("p.yaml").path }
        var key: String { folder.appendingPathComponent("key.json").path }

        init() throws {
            folder = try OperatorCommand.temporaryFolder("exit")
            try "request-topic: exit-requests\ngroup: exit-workers\noutcome-topic: exit-outcomes\ndead-letter-topic: exit-dead-letters\n"
                .write(toFile: pipeline, atomically: true, encoding: .utf8)
            let backend = try EmulatorBackend(configuration: EmulatorConfiguration())
            try backend.makeServiceAccountKey(tokenURI: "http://127.0.0.1:1/token").write(to: URL(fileURLWithPath: key))
        }

        func remove() { try? FileManager.default.removeItem(at: folder) }
    }

    /// Runs the binary with `arguments`, returning its status, output and how long it took.
    private func run(_ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:]) async throws -> (
        status: Int32, output: String, seconds: Double
    ) {
        let started = ContinuousClock.now
        let child = try await ChildProcess(try Programs.iidbatch, arguments, stdin: stdin, environment: environment)
        let status = try await child.waitForExit(seconds: 180)
        return (status, child.text, (ContinuousClock.now - started) / .seconds(1))
    }

    @Test("a usage mistake exits 64 with usage help")
    func usageMistake() async throws {
        let unknownOp = try await run(["submit", "--op", "topics.frobnicate", "--topic", "t", "-"], stdin: Data("tok\n".utf8))
        #expect(unknownOp.status == 64, "\(unknownOp.output)")
        #expect(unknownOp.output.contains("unknown op 'topics.frobnicate'") && unknownOp.output.contains(Self.usageMarker), "\(unknownOp.output)")
        let unknownFlag = try await run(["outcomes", "--no-such-flag"])
        #expect(unknownFlag.status == 64 && unknownFlag.output.contains(Self.usageMarker), "\(unknownFlag.output)")
        let zeroTimeout = try await run(["outcomes", "--from", "o", "--timeout", "0s"])
        #expect(zeroTimeout.status == 64 && zeroTimeout.output.contains("--timeout must be longer than 0, got '0s'"), "\(zeroTimeout.output)")
        // An erasure verdict on part of the topic could miss a deletion that failed before it.
        for narrowed in [["--since", "1h"], ["--request-id", "del-1"]] {
            let partial = try await run(["outcomes", "--from", "o", "--subject", "user-42"] + narrowed)
            #expect(partial.status == 64 && partial.output.contains("--subject judges every deletion of the subject"), "\(partial.output)")
        }
    }

    @Test("bad input data exits 65 and an input file that cannot be read 66, before any broker is asked, without usage help")
    func badInput() async throws {
        let nobody = try DeadBroker.closed()
        let submit = ["submit", "--op", "topics.subscribe", "--topic", "t", "--request-topic", "r", "--brokers", nobody.address]
        let strict = try await run(submit + ["--strict", "-"], stdin: Data("tok-1\nbad token\ntok-2\n".utf8))
        #expect(strict.status == 65, "\(strict.output)")
        #expect(strict.output.contains("-: --strict: 1 bad line(s); nothing was submitted"), "\(strict.output)")
        let notUTF8 = try await run(submit + ["-"], stdin: Data([0x74, 0xFF, 0xFE, 0x0A]))
        #expect(notUTF8.status == 65 && notUTF8.output.contains("not UTF-8"), "\(notUTF8.output)")
        let noColumn = try await run(submit + ["--format", "csv", "--column", "email", "-"], stdin: Data("token,name\nabc,x\n".utf8))
        #expect(noColumn.status == 65 && noColumn.output.contains("no column 'email'"), "\(noColumn.output)")
        let missing = try await run(submit + ["/no/such/tokens.txt"])
        #expect(missing.status == 66 && missing.output.contains("/no/such/tokens.txt: cannot read the file"), "\(missing.output)")
        for result in [strict, notUTF8, noColumn, missing] {
            #expect(!result.output.contains(Self.usageMarker), "a runtime failure prints no usage help: \(result.output)")
            #expect(!result.output.contains(nobody.address), "the input is judged before any broker is asked: \(result.output)")
        }
    }

    @Test("a Kafka properties file (-F) that cannot be read exits 66, one that is malformed 78, before any broker is asked")
    func kafkaConfigFile() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let nobody = try DeadBroker.closed()
        let missing = try await run(["outcomes", "--from", "o", "-F", "/no/such/kafka.properties", "--brokers", nobody.address])
        #expect(missing.status == 66 && missing.output.contains("/no/such/kafka.properties"), "\(missing.output)")
        let file = setup.folder.appendingPathComponent("kafka.properties")
        try "security.protocol=SASL_SSL\nnot a property\n".write(to: file, atomically: true, encoding: .utf8)
        let malformed = try await run(["outcomes", "--from", "o", "-F", file.path, "--brokers", nobody.address])
        #expect(malformed.status == 78 && malformed.output.contains("line 2"), "\(malformed.output)")
        for result in [missing, malformed] {
            #expect(!result.output.contains(Self.usageMarker) && !result.output.contains(nobody.address), "\(result.output)")
        }
    }

    /// How long a command with a short `--timeout` may take at most, in seconds, on a loaded
    /// machine: no bound on speed (a full suite on 2 cores stretched 2 s to 20), only proof that
    /// the command gave up by `--timeout`, which the message names, and not by librdkafka's own
    /// limits (message.timeout.ms is 300 s; a metadata request to a silent broker waits forever).
    static let farBelowLibrdkafkasOwnTimeouts = 120.0  // the child is waited for 180 s

    /// The operator commands that talk to Kafka, as a user types them (without `--brokers`).
    static let kafkaCommands: [[String]] = [
        ["submit", "--op", "topics.subscribe", "--topic", "t", "--request-topic", "exit-requests", "-"],
        ["outcomes", "--from", "exit-outcomes"],
        ["replay", "--from", "exit-dead-letters"],
        ["reconcile", "--requests", "exit-requests", "--outcomes", "exit-outcomes"],
        ["control", "get", "--pipelines", "PIPELINE"],
        ["control", "pause", "--all", "--reason", "test", "--by", "test", "--pipelines", "PIPELINE"],
    ]

    @Test(
        "a Kafka cluster that refuses connections: each operator command exits 69 within --timeout, naming the brokers, without usage help",
        arguments: kafkaCommands)
    func closedPort(_ command: [String]) async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let nobody = try DeadBroker.closed()
        let arguments = command.map { $0 == "PIPELINE" ? setup.pipeline : $0 } + ["--brokers", nobody.address, "--timeout", "2s"]
        let result = try await run(arguments, stdin: Data("tok-1\n".utf8))
        #expect(result.status == 69, "\(arguments): \(result.output)")
        #expect(result.output.contains("the Kafka brokers at \(nobody.address) did not answer within --timeout 2s"), "\(result.output)")
        #expect(!result.output.contains(Self.usageMarker), "an outage is not a usage mistake: \(result.output)")
        #expect(result.seconds < Self.farBelowLibrdkafkasOwnTimeouts, "took \(result.seconds) s: \(result.output)")
        withExtendedLifetime(nobody) {}
    }

    @Test("a broker that accepts connections and never answers: submit exits 69 within --timeout, naming it")
    func silentBroker() async throws {
        let hung = try DeadBroker.silent()
        let result = try await run(
            Self.kafkaCommands[0] + ["--brokers", hung.address, "--timeout", "3s"], stdin: Data("tok-1\n".utf8))
        #expect(result.status == 69, "\(result.output)")
        #expect(result.output.contains("the Kafka brokers at \(hung.address) did not answer within --timeout 3s"), "\(result.output)")
        #expect(!result.output.contains(Self.usageMarker), "\(result.output)")
        #expect(result.seconds < Self.farBelowLibrdkafkasOwnTimeouts, "took \(result.seconds) s: \(result.output)")
        withExtendedLifetime(hung) {}
    }

    @Test("run against a cluster that refuses connections exits 69 within --timeout, naming the brokers, without usage help")
    func runDeadBroker() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let nobody = try DeadBroker.closed()
        let result = try await run(["run", setup.pipeline, "--credentials", setup.key, "--brokers", nobody.address, "--timeout", "2s"])
        #expect(result.status == 69, "\(result.output)")
        #expect(result.output.contains("the Kafka brokers at \(nobody.address) did not answer within --timeout 2s"), "\(result.output)")
        #expect(!result.output.contains(Self.usageMarker), "\(result.output)")
        #expect(result.seconds < Self.farBelowLibrdkafkasOwnTimeouts, "took \(result.seconds) s: \(result.output)")
        withExtendedLifetime(nobody) {}
    }

    @Test("run with a pipeline file that is not valid exits 78 (configuration), naming the file, without usage help")
    func runBadPipeline() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        try "request-topic: [unclosed\n".write(toFile: setup.pipeline, atomically: true, encoding: .utf8)
        let result = try await run(["run", setup.pipeline, "--credentials", setup.key, "--brokers", "127.0.0.1:1"])
        #expect(result.status == 78 && result.output.contains(setup.pipeline), "\(result.output)")
        #expect(!result.output.contains(Self.usageMarker), "\(result.output)")
    }
}
