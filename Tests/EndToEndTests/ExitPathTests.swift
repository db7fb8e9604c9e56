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

    @Test(
        "SIGTERM with two pipelines while outcomes wait for the broker: both workers start stopping at once, not one after the other's whole stop (a pod's grace period holds one stop, not one per pipeline)"
    )
    func sigtermStopsPipelinesTogether() async throws {
        try await withPipelineFixture(partitions: 2, faults: FaultPlan(latencyMilliseconds: 500)) { fixture in
            let folder = try RunFolder(fixture, name: "exit-two")
            defer { folder.remove() }
            let groups = ["exit-two-a", "exit-two-b"]
            _ = try folder.pipeline(fixture, group: groups[0], "drain-timeout: 3s")
            // The second pipeline reads a topic of its own (two pipelines of a run never share one).
            let secondTopic = fixture.requestTopic + "-b"
            try fixture.kafka.createTopic(secondTopic, partitions: 2)
            try """
            request-topic: \(secondTopic)
            group: \(groups[1])
            outcome-topic: \(fixture.outcomeTopic)
            dead-letter-topic: \(fixture.deadLetterTopic)
            drain-timeout: 3s
            """.write(to: folder.url.appendingPathComponent("\(groups[1]).yaml"), atomically: true, encoding: .utf8)
            let tokens = fixture.seedTokens(800, prefix: "two")
            let requests = (0..<800).map { PipelineRequest(id: "two-\($0)", op: .topicsSubscribe, target: .topic("two-\($0 % 100)"), items: [tokens[$0]]) }
            try await fixture.submit(Array(requests[..<400]))
            try await fixture.produce(requests[400...].map { (PipelineFixture.key($0), Array($0.jsonBody())) }, topic: secondTopic)
            let worker = try await ChildProcess(try Programs.iidbatch, folder.runArguments(fixture, pipeline: folder.url.path, RunFolder.groupOptions))
            try await fixture.waitForRead({ _ in "a first outcome (the worker said:\n\(worker.text))" }) { !$0.outcomes.isEmpty }
            try await fixture.kafka.setBrokerDown(1)
            worker.terminate()
            let status = try await worker.waitForExit(seconds: 240)
            try fixture.kafka.setBrokerUp(1)
            let text = worker.text
            #expect(status == 0, "exit status \(status); output:\n\(text)")
            // Each drain ends undrained (its outcomes wait for the broker), after drain-timeout:
            // both stops began before the first of them ended.
            let began = groups.compactMap { text.range(of: "\($0): stopping (finishing in-flight work")?.lowerBound }
            let firstEnded = try #require(text.range(of: "unfinished after")?.lowerBound, "no drain ended undrained; output:\n\(text)")
            #expect(began.count == 2 && began.allSatisfy { $0 < firstEnded }, "output:\n\(text)")
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
