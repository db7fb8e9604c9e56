import Emulator
import Foundation
import InstanceAPI
import Testing

@Suite("Fault injection")
struct FaultInjectionTests {
    @Test("a 10 % INTERNAL rate over 20,000 items is observed within 1 percentage point")
    func itemErrorRate() async throws {
        try await withEmulator(faults: FaultPlan(itemErrors: ["INTERNAL": 0.10])) { (e: EmulatorFixture) async throws in
            let tokens = e.seedTokens(1_000)
            var internalCount = 0
            for _ in 0..<20 {
                internalCount += try await e.client.batchAdd(topic: "rate", tokens: tokens).filter { $0.code == .internal }.count
            }
            let rate = Double(internalCount) / 20_000
            // Binomial standard deviation is 0.21 points: 1 point is almost five of them.
            #expect(abs(rate - 0.10) < 0.01, "observed \(rate)")
            // Codes are tallied in runs before they are counted: every item lands in one code.
            #expect(e.backend.stats["iid.batchAdd"].itemCodes == ["INTERNAL": internalCount, "OK": 20_000 - internalCount])
        }
    }

    @Test("the same seed gives the same faults for the same calls")
    func deterministic() async throws {
        func run() async throws -> [ResultCode] {
            try await withEmulator(faults: FaultPlan(itemErrors: ["INTERNAL": 0.2, "UNAVAILABLE": 0.1]), seed: 99) { (e: EmulatorFixture) async throws in
                try await e.client.batchAdd(topic: "d", tokens: e.seedTokens(300)).map(\.code)
            }
        }
        let first = try await run()
        #expect(try await run() == first)
        #expect(first.contains(.internal) && first.contains(.unavailable) && first.contains(.ok))
    }

    @Test("a quota of Q calls/s throttles past Q: batch items RESOURCE_EXHAUSTED, other calls 429 with Retry-After")
    func quota() async throws {
        let q = 2.0
        try await withEmulator(faults: FaultPlan(quota: ["*": q])) { (e: EmulatorFixture) async throws in
            let tokens = e.seedTokens(10)
            let started = ContinuousClock.now
            var allowed = 0
            var throttled = 0
            for _ in 0..<20 {
                let codes = try await e.client.batchAdd(topic: "q", tokens: tokens).map(\.code)
                if codes.allSatisfy({ $0 == .ok }) { allowed += 1 }
                if codes.allSatisfy({ $0 == .resourceExhausted }) { throttled += 1 }
            }
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            #expect(allowed + throttled == 20)
            // A bucket of Q that refills at Q per second allows at most Q + Q x elapsed calls.
            #expect(Double(allowed) <= q + q * seconds + 1, "allowed \(allowed) in \(seconds) s")
            if seconds < 8 { #expect(throttled > 0) }
            // Non-batch APIs answer 429 with Retry-After. Ten calls at once against a bucket of
            // two: throttled however slowly the machine runs them (one after another, a loaded CI
            // run stayed under 2 calls/s and saw no 429).
            let errors = await withTaskGroup(of: (any Error)?.self) { group in
                for _ in 0..<10 {
                    group.addTask {
                        do { _ = try await e.client.deleteInstance(id: "dNeverExisted000000000") } catch { return error }
                        return nil
                    }
                }
                return await group.reduce(into: [any Error]()) { if let error = $1 { $0.append(error) } }
            }
            #expect(!errors.isEmpty)
            for error in errors { #expect(error as? InstanceAPIError == .throttled(api: .deleteInstance, retryAfter: .seconds(1))) }
        }
    }

    @Test("whole-call errors and outages fail the call, retryable, never as item failures")
    func callErrorsAndOutages() async throws {
        try await withEmulator(faults: FaultPlan(callErrors: ["503": 1])) { (e: EmulatorFixture) async throws in
            let tokens = e.seedTokens(5)
            let error = await #expect(throws: InstanceAPIError.self) { try await e.client.batchAdd(topic: "o", tokens: tokens) }
            #expect(error?.resultCode == .unavailable && error?.isRetryable == true)
            try e.backend.setFaults(FaultPlan(outages: [.init(startSeconds: 0, durationSeconds: 30)]))
            let outage = await #expect(throws: InstanceAPIError.self) { try await e.client.batchAdd(topic: "o", tokens: tokens) }
            #expect(outage?.retryAfter != nil && outage?.isRetryable == true)
            try e.backend.setFaults(FaultPlan())
            #expect(try await e.client.batchAdd(topic: "o", tokens: tokens).allSatisfy { $0 == .ok })
        }
    }

    @Test(
        "a batch answer whose every item is INTERNAL or UNAVAILABLE fails the whole call, an outage, one token's too; one answered otherwise keeps the items' results"
    )
    func everyItemFailing() async throws {
        try await withEmulator(faults: FaultPlan(itemErrors: ["INTERNAL": 1])) { (e: EmulatorFixture) async throws in
            let tokens = e.seedTokens(40)
            let apns = (0..<30).map { NumberText.digits(0xbeef + $0, radix: 16, width: 64) }
            for plan in [["INTERNAL": 1.0], ["UNAVAILABLE": 1.0], ["INTERNAL": 0.5, "UNAVAILABLE": 0.5]] {
                try e.backend.setFaults(FaultPlan(itemErrors: plan))
                let expected = plan.count == 1 ? plan.keys.first! : "INTERNAL"
                let calls: [(String, () async throws -> Void)] = [
                    ("batchAdd", { _ = try await e.client.batchAdd(topic: "down", tokens: tokens) }),
                    ("batchRemove", { _ = try await e.client.batchRemove(topic: "down", tokens: tokens) }),
                    ("batchImport", { _ = try await e.client.batchImport(application: "com.example.ios", sandbox: false, apnsTokens: apns) }),
                    // One token: as a 500 on a single-token call, not an answer that closes the breaker.
                    ("batchAdd of one", { _ = try await e.client.batchAdd(topic: "down", tokens: [tokens[0]]) }),
                ]
                for (name, call) in calls {
                    let error = await #expect(throws: InstanceAPIError.self, "\(name) \(plan)") { try await call() }
                    guard case .failedEveryItem(_, let code, _)? = error else {
                        Issue.record("\(name) \(plan): \(String(describing: error))")
                        continue
                    }
                    if name != "batchAdd of one" { #expect(code.rawValue == expected, "\(name) \(plan)") }
                    #expect(error?.isOutage == true && error?.isRetryable == true && error?.wasSent == true && error?.answerStatus == 200, "\(name)")
                }
            }
            // One token answered OK among them: each token has its own result.
            try e.backend.setFaults(FaultPlan(itemErrors: ["INTERNAL": 0.9]))
            let withOK = try await e.client.batchAdd(topic: "down", tokens: e.seedTokens(200))
            #expect(withOK.contains(.ok) && withOK.contains { $0.code == .internal }, "\(withOK.map(\.code))")
        }
    }

    @Test("fault flags parse, and a bad one names its flag and value")
    func parsing() throws {
        let plan = try FaultPlan.parse(
            itemErrors: ["INTERNAL=0.1"], callErrors: ["503=0.05"], quotas: ["50", "iid.batchAdd=10"], latencyMilliseconds: 5, outages: ["30+10"])
        #expect(plan.itemErrors == ["INTERNAL": 0.1] && plan.callErrors == ["503": 0.05])
        #expect(plan.quota == ["*": 50, "iid.batchAdd": 10] && plan.outages == [.init(startSeconds: 30, durationSeconds: 10)])
        #expect(throws: EmulatorError.invalidOption(option: "--item-error", value: "INTERNAL", reason: "expected CODE=RATE, e.g. INTERNAL=0.1")) {
            try FaultPlan.parse(itemErrors: ["INTERNAL"])
        }
        let error = #expect(throws: EmulatorError.self) { try FaultPlan.parse(itemErrors: ["INTERNAL=1.5"]) }
        #expect(error?.description.contains("INTERNAL=1.5") == true)
        #expect(throws: EmulatorError.self) { try FaultPlan.parse(outages: ["ten"]) }
    }
}
