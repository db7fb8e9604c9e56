import InstanceAPI
import Testing

@testable import Pipeline

@Suite("What becomes of a job whose whole call failed, and when such a failure is the job's own")
struct FailedCallVerdictTests {
    private let unavailable = InstanceAPIError.serverError(api: .batchAdd, status: 503, message: "x", retryAfter: nil)
    private let throttled = InstanceAPIError.throttled(api: .batchAdd, retryAfter: nil)
    private let denied = InstanceAPIError.permissionDenied(api: .deleteInstance, message: "x")
    private let refused = InstanceAPIError.badRequest(api: .batchAdd, message: "x")

    private func verdict(
        _ error: InstanceAPIError, items: Bool = true, alone: Bool = false, closed: Bool = true, paced: Bool = true, charged: Bool = true
    ) -> FailedCallVerdict {
        .of(error, itemsLeft: items, alone: alone, breakerClosed: closed, pacedRetryAllowed: paced, chargedRetryAllowed: charged)
    }

    @Test("each verdict, from the error and the state it meets")
    func verdicts() {
        #expect(verdict(unavailable, items: false) == .released, "nothing left: whatever the error")
        #expect(verdict(throttled) == .paced)
        #expect(verdict(throttled, paced: false) == .backoff, "past max-elapsed a throttle is charged like any retryable failure")
        #expect(verdict(throttled, paced: false, charged: false) == .settle)
        #expect(verdict(denied) == .suspect, "a failure of the whole system is not the items'")
        #expect(verdict(unavailable, closed: false) == .suspect, "while the breaker is open, a retryable failure is the system's")
        #expect(verdict(unavailable) == .backoff && verdict(unavailable, charged: false) == .settle)
        #expect(verdict(denied, alone: true) == .backoff, "the job's own: it gets its budget's retries")
        #expect(verdict(denied, alone: true, charged: false) == .settle)
        #expect(verdict(refused) == .settle, "a refusal of the request itself is final")
    }

    @Test("a failure of the whole system is the job's own once a call of its API was answered after the call started, or after the job last failed so")
    func ownFailure() {
        let start = ContinuousClock.Instant.now
        var answers = APIAnswers()
        #expect(!answers.isOwnFailure(denied, of: .deleteInstance, startedAt: start, systemFailedAt: nil), "nothing answered yet")
        answers.answered(.deleteInstance, at: start + .seconds(1))
        #expect(answers.isOwnFailure(denied, of: .deleteInstance, startedAt: start, systemFailedAt: nil))
        #expect(!answers.isOwnFailure(denied, of: .deleteInstance, startedAt: start + .seconds(2), systemFailedAt: nil), "answered before it started")
        #expect(
            answers.isOwnFailure(denied, of: .deleteInstance, startedAt: start + .seconds(2), systemFailedAt: start),
            "answered since the job's last failure of the whole system")
        #expect(!answers.isOwnFailure(denied, of: .batchAdd, startedAt: start, systemFailedAt: nil), "another API's answer says nothing")
        #expect(!answers.isOwnFailure(refused, of: .deleteInstance, startedAt: start, systemFailedAt: nil), "not a failure of the whole system")
    }
}
