import Emulator
import Foundation
import Kafka
import Pipeline
import Testing

/// `iidbatch run` stopped by SIGTERM: it exits 0, after its Kafka clients were destroyed (every
/// librdkafka thread ended), also when the broker is down and outcomes are waiting for it.
@Suite("iidbatch run: the exit path after SIGTERM", .serialized)
struct ExitPathTests {
    /// Makes the exit path fail the process (non-zero, a line on stderr) if a librdkafka thread
    /// still runs when it is about to exit.
    static let exitCheck = ["IIDBATCH_EXIT_CHECK": "1"]

    @Test("SIGTERM after traffic: run exits 0, and no librdkafka thread is left when it exits (IIDBATCH_EXIT_CHECK=1)")
    func sigtermLeavesNoKafkaThread() async throws {
        try await withPipelineFixture(partitions: 2) { fixture in
            let folder = try RunFolder(fixture, name: "exit-check")
            defer { folder.remove() }
            let pipeline = try folder.pipeline(fixture, group: "exit-check", "drain-timeout: 5s")
            let tokens = fixture.seedTokens(10, prefix: "exit")
            let requests = (0..<10).map { PipelineRequest(id: "exit-\($0)", op: .topicsSubscribe, target: .topic("exit-\($0 % 3)"), items: [tokens[$0]]) }
            try await fixture.submit(requests)
            let worker = try await ChildProcess(
                try Programs.iidbatch, folder.runArguments(fixture, pipeline: pipeline, RunFolder.groupOptions), environment: Self.exitCheck)
            _ = try await fixture.waitForOutcomes(requests.map(\.id))
            worker.terminate()
            let status = try await worker.waitForExit(seconds: 120)
            #expect(status == 0, "exit status \(status); output:\n\(worker.text)")
            #expect(!worker.text.contains("exit check"), "\(worker.text)")
        }
    }

    @Test("SIGTERM while the broker is down and outcomes wait for it: run exits 0 within its stop deadline, not after message.timeout.ms (300 s)")
    func sigtermDuringKafkaOutage() async throws {
        try await withPipelineFixture(partitions: 2, faults: FaultPlan(latencyMilliseconds: 100)) { fixture in
            let folder = try RunFolder(fixture, name: "exit-outage")
            defer { folder.remove() }
            let pipeline = try folder.pipeline(fixture, group: "exit-outage", "drain-timeout: 2s")
            let tokens = fixture.seedTokens(400, prefix: "outage")
            let requests = (0..<400).map { PipelineRequest(id: "outage-\($0)", op: .topicsSubscribe, target: .topic("outage-\($0 % 50)"), items: [tokens[$0]]) }
            try await fixture.submit(requests)
            let worker = try await ChildProcess(try Programs.iidbatch, folder.runArguments(fixture, pipeline: pipeline, RunFolder.groupOptions))
            try await fixture.waitForRead({ _ in "a first outcome (the worker said:\n\(worker.text))" }) { !$0.outcomes.isEmpty }
            // The worker has read far more than it has published: the rest of its outcomes now wait
            // for a broker that does not answer.
            try await fixture.kafka.setBrokerDown(1)
            worker.terminate()
            // The stop deadline: drain-timeout, then at most about 25 s for the commit, leaving the
            // group and flushing (see PipelineWorker.shutdown), and the exit's wait for the clients.
            // Before sends were cancellable, the stop waited for message.timeout.ms.
            let status = try await worker.waitForExit(seconds: 150)
            try fixture.kafka.setBrokerUp(1)
            #expect(status == 0, "exit status \(status); output:\n\(worker.text)")
        }
    }

    /// Cycles of the stress run, from `IIDBATCH_STRESS_CYCLES` (unset: the test does not run).
    static let stressCycles = ProcessInfo.processInfo.environment["IIDBATCH_STRESS_CYCLES"].flatMap(Int.init)

    @Test(
        "start/stop stress (IIDBATCH_STRESS_CYCLES=n): run with traffic, stopped by SIGTERM at every stage of its life, exits 0 each time with no librdkafka thread left",
        .enabled(if: stressCycles != nil))
    func startStopStress() async throws {
        let cycles = Self.stressCycles ?? 0
        try await withPipelineFixture(partitions: 4) { fixture in
            let folder = try RunFolder(fixture, name: "exit-stress")
            defer { folder.remove() }
            let pipeline = try folder.pipeline(fixture, group: "exit-stress", "drain-timeout: 5s")
            let tokens = fixture.seedTokens(100, prefix: "stress")
            let arguments = folder.runArguments(fixture, pipeline: pipeline, RunFolder.groupOptions)
            let started = ContinuousClock.now
            var exits: [Int32: Int] = [:]
            var failures: [String] = []
            var slowestStop = Duration.zero
            for cycle in 0..<cycles {
                let requests = (0..<5).map { n in
                    PipelineRequest(id: "stress-\(cycle)-\(n)", op: .topicsSubscribe, target: .topic("stress-\(n)"), items: [tokens[(cycle * 5 + n) % 100]])
                }
                try await fixture.submit(requests)
                let worker = try await ChildProcess(try Programs.iidbatch, arguments, environment: Self.exitCheck)
                // Stop at every stage: while it joins the group (no assignment yet), right after its
                // first assignment, and after it has published this cycle's outcomes.
                switch cycle % 4 {
                case 0: try await worker.waitFor("iidbatch run: exit-stress")
                case 1: try await worker.waitFor("assigned")
                default: _ = try await fixture.waitForOutcomes(requests.map(\.id))
                }
                let stopping = ContinuousClock.now
                worker.terminate()
                let status = try await worker.waitForExit(seconds: 120)
                slowestStop = max(slowestStop, ContinuousClock.now - stopping)
                exits[status, default: 0] += 1
                let text = worker.text
                let alarming = ["double free", "corruption", "Assertion", "exit check", "Segmentation", "Fatal error"].filter { text.contains($0) }
                if status != 0 || !alarming.isEmpty {
                    failures.append("cycle \(cycle) (stop stage \(cycle % 4)): exit \(status), \(alarming); output:\n\(text)")
                }
            }
            let elapsed = ContinuousClock.now - started
            print(
                "exit stress: \(cycles) cycles in \(elapsed), exits \(exits.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")), slowest stop \(slowestStop), \(failures.count) failed"
            )
            #expect(failures.isEmpty, "\(failures.count) of \(cycles) cycles failed:\n\(failures.prefix(3).joined(separator: "\n\n"))")
        }
    }
}
