import Emulator
import Foundation
import Kafka
import Pipeline
import Testing

/// `iidbatch run` as a process, killed with SIGKILL mid-run and replaced: nothing is lost.
@Suite("iidbatch run: no loss across SIGKILL", .serialized)
struct PipelineCrashTests {
    @Test("killed three times mid-run, replaced each time: every request has an outcome; repeats bounded by what was in flight")
    func sigkillThreeTimes() async throws {
        try await withPipelineFixture(partitions: 4, faults: FaultPlan(latencyMilliseconds: 25)) { fixture in
            let folder = try RunFolder(fixture, name: "crash")
            defer { folder.remove() }
            let maxInFlight = 100
            let pipeline = try folder.pipeline(
                fixture, group: "crash-workers",
                """
                batching: { max-items: 10, linger: 10ms }
                concurrency: 2
                max-in-flight-items: \(maxInFlight)
                drain-timeout: 5s
                """)

            let tokens = fixture.seedTokens(600, prefix: "crash")
            let requests = (0..<600).map { n in
                PipelineRequest(id: "crash-\(n)", op: .topicsSubscribe, target: .topic("c\(n % 20)"), items: (0..<10).map { tokens[(n * 10 + $0) % 600] })
            }
            try await fixture.submit(requests)
            let arguments = folder.runArguments(
                fixture, pipeline: pipeline,
                RunFolder.groupOptions + ["-X", "auto.commit.interval.ms=200", "--log-level", "info"])
            @Sendable func answered(_ outcomes: [Outcome]) -> Int { Set(outcomes.map(\.requestID)).count }

            var workers: [ChildProcess] = []
            for killAt in [90, 250, 420] {
                let worker = try await ChildProcess(try Programs.iidbatch, arguments)
                workers.append(worker)
                try await fixture.waitForRead({ "\(killAt) outcomes (at \(answered($0.outcomes)); the worker said:\n\(worker.text))" }) {
                    answered($0.outcomes) >= killAt
                }
                worker.kill()
                _ = try await worker.waitForExit(seconds: 120)
                print("sigkill test: killed at \(answered(fixture.outcomes)) requests answered (\(fixture.outcomes.count) outcomes)")
            }
            let last = try await ChildProcess(try Programs.iidbatch, arguments)
            workers.append(last)
            _ = try await fixture.waitForOutcomes(requests.map(\.id), timeout: .seconds(180))
            last.interrupt()
            #expect(try await last.waitForExit() == 0, "a graceful stop exits 0")

            var reconciliation = Reconciliation()
            for request in requests { reconciliation.expect(request.id) }
            for outcome in fixture.outcomes { reconciliation.record(outcome) }
            #expect(reconciliation.missing.isEmpty, "lost: \(reconciliation.missing)")
            #expect(reconciliation.unexpected.isEmpty)
            let unsuccessful = fixture.outcomes.filter { $0.status != .succeeded }
            // What the workers said about their partitions and rejections tells how it came about.
            let story = workers.enumerated().map { number, worker in
                "worker \(number + 1):\n"
                    + worker.text.split(separator: "\n").filter { line in
                        ["assigned", "revoked", "lost", "abandoned", "rejected"].contains { line.contains($0) }
                    }.joined(separator: "\n")
            }
            #expect(
                unsuccessful.isEmpty,
                "not succeeded: \(unsuccessful.map { "\($0.requestID) \($0.status): \($0.reason ?? "")" })\n\(story.joined(separator: "\n"))")
            // Each kill may repeat the requests in flight (at most max-in-flight-items / 10 of
            // them) and those finished since the last commit (every 200 ms). Without committed
            // offsets every restart would repeat everything before it: 90 + 250 + 420 repeats.
            let repeats = reconciliation.duplicates.values.reduce(0) { $0 + $1 - 1 }
            print("sigkill test: \(requests.count) requests, \(fixture.outcomes.count) outcomes, \(repeats) repeated across 3 kills")
            #expect(repeats <= 3 * (maxInFlight / 10 + 40), "\(repeats) repeated outcomes")
            for topic in 0..<20 { #expect(fixture.backend.subscribers(of: "c\(topic)").count == 30) }
        }
    }
}
