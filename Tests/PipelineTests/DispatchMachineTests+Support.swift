import InstanceAPI
import WireJSON

@testable import Pipeline

/// What the dispatch machine's tests build their events from and read its actions with.
extension DispatchMachineTests {
    func pipeline(_ adjust: (inout PipelineConfiguration) -> Void = { _ in }) -> PipelineConfiguration {
        var configuration = PipelineConfiguration(
            name: "test", requestTopic: "requests", linger: .milliseconds(10), concurrency: 4,
            retry: RetryPolicy(maxAttempts: 3, initialBackoff: .milliseconds(100), maxBackoff: .seconds(1), maxElapsed: .seconds(10)),
            breakerThreshold: 3, breakerCooldown: .seconds(1), breakerMaxCooldown: .seconds(4))
        configuration.adaptiveRate.start = 1_000  // pacing is not the subject unless a test sets a rate
        adjust(&configuration)
        return configuration
    }

    func subscribe(_ id: String, _ count: Int, topic: String = "news") -> PipelineRequest {
        PipelineRequest(id: id, op: .topicsSubscribe, target: .topic(topic), items: (0..<count).map { "\(id)-\($0)" })
    }

    func deletion(_ id: String) -> PipelineRequest {
        PipelineRequest(id: id, op: .installationsDelete, target: .subject(nil), items: [id])
    }

    func started(_ actions: [DispatchAction]) -> [CallJob] {
        actions.compactMap { if case .start(let job) = $0 { job } else { nil } }
    }

    func settled(_ actions: [DispatchAction]) -> [ItemSettlement] {
        // Runs expanded to one settlement per item.
        actions.flatMap { action -> [ItemSettlement] in if case .settle(let runs) = action { runs } else { [] } }.flatMap { run in
            run.indexes.map { index in
                var item = run
                item.origin.index = index
                item.count = 1
                return item
            }
        }
    }

    func timers(_ actions: [DispatchAction]) -> [ContinuousClock.Instant] {
        actions.compactMap { if case .setTimer(let instant) = $0 { instant } else { nil } }
    }

    func pauses(_ actions: [DispatchAction]) -> [Bool] {
        actions.compactMap { if case .pauseForOutage(let paused) = $0 { paused } else { nil } }
    }

    /// A 503 of the deletion API: an outage.
    var outage503: InstanceAPIError { .serverError(api: .deleteInstance, status: 503, message: "down", retryAfter: nil) }

    /// A machine (no linger, one attempt each) whose breaker opened at `t0`: three deletions
    /// (handles 0, 1, 2) started and each failed `outage503`. With how many started, and what
    /// their failures returned.
    func machineWithOpenBreaker(seed: UInt64) -> (machine: DispatchMachine, started: Int, opened: [DispatchAction]) {
        var machine = DispatchMachine(
            configuration: pipeline {
                $0.linger = .zero
                $0.retry.maxAttempts = 1
            }, random: SplitMix64(seed: seed))
        var actions: [DispatchAction] = []
        for index in 0..<3 { actions += machine.add(deletion("d\(index)"), handle: RequestHandle(index), now: t0) }
        var opened: [DispatchAction] = []
        for job in started(actions) { opened += machine.finished(jobID: job.id, .failed(outage503), now: t0) }
        return (machine, started(actions).count, opened)
    }

    func answers(_ codes: [ResultCode]) -> CallAnswer {
        .items(RunLengthList(codes.map { ItemAnswer(ItemResult($0)) }))
    }
}
