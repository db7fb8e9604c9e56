import ArgumentParser
import CommandSupport
import Foundation
import InstanceAPI
import Synchronization

/// `iidbatch bench client`: the CPU the bare API client spends per backend call at a paced rate,
/// with no Kafka and no pipeline: the floor under `bench worker`'s and `bench field`'s figures.
struct BenchClient: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "client",
        abstract: "Measure the bare API client's CPU per call at a paced rate: the floor under a worker's CPU per call.",
        discussion: """
            Starts an emulator child process seeded with real-size items, then makes --calls calls \
            from this process with the client `iidbatch run` uses (its transport, its connection \
            pool, its Swift tasks on one SwiftNIO event loop), started --rate a second in 20 ms \
            ticks as a paced worker starts them, each in a task of its own. Prints this process's \
            CPU (user + system, from /proc) per call from the first call to the last answer. A \
            worker's own CPU per call at the same rate, less this, is what Kafka and the pipeline \
            cost.
            """
    )

    /// The call the client makes.
    enum Call: String, ExpressibleByArgument, CaseIterable {
        /// installations.delete: DELETE of one Firebase installation, no body.
        case deletion
        /// FCM v1 topic subscribe: POST of one registration token's relation, a small JSON body.
        case fcmSubscribe = "fcm-subscribe"
    }

    @Option(help: "The call to make.")
    var call: Call = .deletion

    @Option(help: "Calls in all.")
    var calls = 15_000

    @Option(help: "Calls started per second.")
    var rate = 500

    @Option(help: ArgumentHelp("Latency the emulator adds to every call, ms.", valueName: "ms"))
    var latency = 0

    @Flag(help: "Serve the emulator over HTTPS with HTTP/2, as Google's front end is served.")
    var tls = false

    func validate() throws {
        guard (1...10_000_000).contains(calls) else { throw ValidationError("--calls must be 1...10000000, got \(calls)") }
        guard (1...100_000).contains(rate) else { throw ValidationError("--rate must be 1...100000, got \(rate)") }
        guard latency >= 0 else { throw ValidationError("--latency must be 0 or more, got \(latency)") }
    }

    func run() async throws {
        let onLoops = WorkerSetup.runTasksOnEventLoops()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("iidbatch-bench-client-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let signals = BenchChild.stopAllOnSignal("bench client", removing: folder)
        defer { signals.cancel() }
        let pools = BenchShape.Pools(count: BenchWorker.poolSize)
        let seed = (tokens: folder.appendingPathComponent("tokens.txt"), installations: folder.appendingPathComponent("installations.txt"))
        try pools.registrationTokens.joined(separator: "\n").write(to: seed.tokens, atomically: true, encoding: .utf8)
        try pools.installationIDs.joined(separator: "\n").write(to: seed.installations, atomically: true, encoding: .utf8)
        let keyPath = folder.appendingPathComponent("key.json").path
        let certificate = tls ? try BenchTLS(in: folder) : nil
        let (emulator, baseURL) = try await BenchChild.emulator(
            ["--port", "0", "--write-key", keyPath, "--tokens", seed.tokens.path, "--installations", seed.installations.path, "--latency", "\(latency)"]
                + (certificate?.emulatorArguments ?? []))
        let client: InstanceAPIClient
        do {
            let credentials = try ServiceAccountCredentials(json: try Data(contentsOf: URL(fileURLWithPath: keyPath)))
            client = InstanceAPIClient(
                credentials: credentials,
                configuration: .singleHost(baseURL, extraTrustRoots: try certificate.map { try ExtraTrustRoots(path: $0.certificate) }))
        } catch {
            await emulator.stop()
            throw error
        }
        do {
            try await measure(client, pools: pools, onLoops: onLoops)
        } catch {
            try? await client.shutdown()
            await emulator.stop()
            throw error
        }
        do { try await client.shutdown() } catch {
            await emulator.stop()
            throw error
        }
        await emulator.stop()
    }

    /// Makes the calls with `client`, drawing items from `pools`, and prints the figures.
    private func measure(_ client: InstanceAPIClient, pools: BenchShape.Pools, onLoops: Bool) async throws {
        let call = self.call
        let make = { @Sendable (index: Int) async throws(InstanceAPIError) -> ItemResult in
            switch call {
            case .deletion: try await client.deleteInstance(id: pools.installationIDs[index % pools.installationIDs.count])
            case .fcmSubscribe:
                try await client.fcmSubscribe(token: pools.registrationTokens[index % pools.registrationTokens.count], topic: "bench-\(index % 10)")
            }
        }
        // The token and the first connection, before the window.
        _ = try await make(0)
        let results = Results()
        let usageBefore = ProcessUsage.of(pid: getpid())
        let clock = ContinuousClock()
        let started = clock.now
        let perTick = max(1, rate / 50)
        try await withThrowingDiscardingTaskGroup { group in
            var next = 1
            var tick = started
            while next <= calls {
                for index in next..<min(next + perTick, calls + 1) {
                    group.addTask { results.count(try await make(index).code) }
                }
                next += perTick
                tick = tick.advanced(by: .seconds(Double(perTick) / Double(rate)))
                try await Task.sleep(until: tick, clock: clock)
            }
        }
        let seconds = (clock.now - started).seconds
        let usage = ProcessUsage.of(pid: getpid())
        let cpu = (usage?.cpuSeconds ?? 0) - (usageBefore?.cpuSeconds ?? 0)
        let system = (usage?.systemSeconds ?? 0) - (usageBefore?.systemSeconds ?? 0)
        Output.line(
            String(
                format: "bench client: %d %@ calls%@, latency %d ms, %.0f calls/s: %.1f µs of CPU per call (system %.1f)%@", calls, call.rawValue,
                tls ? " over HTTPS + HTTP/2" : " over HTTP/1.1", latency, Double(calls) / seconds, cpu / Double(calls) * 1e6,
                system / Double(calls) * 1e6, onLoops ? "" : "; Swift tasks on the default executor"))
        Output.line("  results: \(results.summary)")
    }

    /// The calls' result codes, counted from their tasks.
    private final class Results: Sendable {
        private let counts = Mutex<[ResultCode: Int]>([:])
        func count(_ code: ResultCode) { counts.withLock { $0[code, default: 0] += 1 } }
        var summary: String { counts.withLock { $0.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") } }
    }
}
