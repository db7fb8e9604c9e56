import InstanceAPI
import Testing

@testable import Pipeline

@Suite("What becomes of a job whose whole call failed, and when such a failure is the job's own")
struct FailedCallVerdictTests {
    private let unavailable = InstanceAPIError.serverError(api: .batchAdd, status: 503, message: "x", retryAfter: nil)
    private let throttled = InstanceAPIError.throttled(api: .batchAdd, retryAfter: nil)
    private let denied = InstanceAPIError.permissionDenied(api: .deleteInstance, message: "x")
    private let refused = InstanceAPIError.badRequest(api: .batchAdd, message: "x")
    private let notImplemented = InstanceAPIError.serverError(api: .batchAdd, status: 501, message: "x", retryAfter: nil)

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
        #expect(verdict(unavailable, alone: true) == .backoff && verdict(unavailable, alone: true, charged: false) == .settle)
        #expect(verdict(refused) == .settle, "a refusal of the request itself is final")
        #expect(verdict(denied, alone: true) == .backoff, "the job's own: it gets its budget's retries")
        #expect(verdict(denied, alone: true, charged: false) == .settle)
    }

    /// Simulation seeds 130, 170 and 240: a request read while the backend was down for everyone
    /// ended UNAVAILABLE (dead-lettered) before the breaker had seen enough failures to open; and
    /// a 501 on every call (a misrouting proxy) ended its items UNKNOWN, final, out of the replay.
    /// The review of the change: one API failing for everyone while others answer may never open
    /// the (one) breaker, so the uncharged retries before it opens stay within `max-elapsed`.
    @Test("a failure of the whole system that is not the job's own is not charged before the breaker opens either, within max-elapsed")
    func outageBeforeTheBreakerOpens() {
        #expect(verdict(unavailable) == .outageBackoff, "sent again after a backoff, not charged")
        #expect(verdict(unavailable, charged: false) == .outageBackoff, "whatever the attempts: the items did nothing wrong")
        #expect(verdict(unavailable, paced: false) == .settle, "past max-elapsed it ends (dead-lettered: its code is retryable)")
        #expect(verdict(unavailable, closed: false, paced: false) == .suspect, "the breaker open: the time it is open is not counted")
        #expect(verdict(notImplemented) == .outageBackoff, "an outage's status though no retry of the item could help it")
        #expect(verdict(notImplemented, alone: true) == .backoff && verdict(notImplemented, alone: true, charged: false) == .settle)
        #expect(verdict(notImplemented, closed: false) == .suspect)
        // Failed so more often than the breaker's threshold with it closed: the system answers
        // others (one API down for everyone while the pipeline's others answer): charged.
        #expect(verdictPast(unavailable) == .backoff && verdictPast(unavailable, charged: false) == .settle)
        #expect(verdictPast(unavailable, closed: false) == .suspect, "the breaker open: never charged")
    }

    private func verdictPast(_ error: InstanceAPIError, closed: Bool = true, charged: Bool = true) -> FailedCallVerdict {
        .of(error, itemsLeft: true, alone: false, breakerClosed: closed, pacedRetryAllowed: true, chargedRetryAllowed: charged, unchargedLeft: false)
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
