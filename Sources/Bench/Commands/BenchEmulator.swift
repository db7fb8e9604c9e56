import ArgumentParser
import CommandSupport
import Emulator
import Foundation
import InstanceAPI

/// `iidbatch bench emulator`: the raw ceiling of full batchAdd calls against the emulator.
struct BenchEmulator: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "emulator",
        abstract: "Drive full batchAdd calls at several concurrencies and print calls/s and items/s.",
        discussion: """
            Starts an emulator in this process, sharing its cores with the client as the demo \
            does. Each call carries --tokens-per-call seeded tokens. The figures are the ceiling \
            later benchmarks compare the pipeline with.
            """
    )

    @Option(help: "Calls per concurrency level.")
    var calls = 2_000

    @Option(help: "Tokens per batchAdd call (at most \(APILimits.topicBatch)).")
    var tokensPerCall = 1_000

    @Option(help: "Concurrency levels, comma-separated.")
    var concurrency = "1,4,16,64"

    func validate() throws {
        guard calls > 0 else { throw ValidationError("--calls must be positive, got \(calls)") }
        guard (1...APILimits.topicBatch).contains(tokensPerCall) else {
            throw ValidationError("--tokens-per-call must be 1-\(APILimits.topicBatch), got \(tokensPerCall)")
        }
        guard !levels.isEmpty, levels.allSatisfy({ $0 > 0 }) else { throw ValidationError("--concurrency must list positive integers, got '\(concurrency)'") }
    }

    private var levels: [Int] { concurrency.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) } }

    func run() async throws {
        let target = try await BenchTarget.make(connections: levels.max() ?? 1)
        let tokens = (0..<tokensPerCall).map { "bench-token-\($0)" }
        target.server.backend.seed(SeedRequest(tokens: tokens))
        Output.line("target: \(target.description); \(tokensPerCall) tokens per batchAdd call, \(calls) calls per level")
        for level in levels {
            let figures = try await BenchCalls.run(calls: calls, concurrency: level) { index in
                // Ten topics: re-adding is idempotent, so subscriptions stay bounded.
                let results = try await target.client.batchAdd(topic: "bench-\(index % 10)", tokens: tokens)
                guard results.allSatisfy({ $0 == .ok }) else { throw RuntimeError(.software, "unexpected results \(Set(results.map(\.code)))") }
            }
            Output.line(
                String(
                    format: "concurrency %3d: %d calls in %.2f s = %.0f calls/s, %.0f items/s, call latency p50 %.1f ms, p99 %.1f ms",
                    level, calls, figures.seconds, figures.callsPerSecond, figures.callsPerSecond * Double(tokensPerCall),
                    figures.p50Milliseconds, figures.p99Milliseconds))
        }
        await target.shutdown()
    }
}
