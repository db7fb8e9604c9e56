import Foundation
import InstanceAPI
import Pipeline
import Testing

@Suite("Outcomes on the wire")
struct OutcomeTests {
    @Test("status: all successes succeeded, none failed, a mix partial; ALREADY_ABSENT counts as success")
    func status() {
        #expect(OutcomeStatus.of([.ok, .alreadyAbsent]) == .succeeded)
        #expect(OutcomeStatus.of([.notFound, .internal]) == .failed)
        #expect(OutcomeStatus.of([.ok, .tooManyTopics]) == .partial)
        #expect(OutcomeStatus.of([ResultCode]()) == .failed)
    }

    @Test("an outcome round-trips through its wire form, codes and millisecond timings intact")
    func roundTrip() throws {
        let received = Date(timeIntervalSince1970: 1_800_000_000.125)
        let outcome = Outcome(
            requestID: "r-1", op: "topics.subscribe", target: ["topic": "movies"], status: .partial,
            counts: ["OK": 2, "NOT_FOUND": 1, "UNKNOWN(NEW_THING)": 1],
            failedItems: [
                FailedItem(index: 1, item: "t1", code: .notFound, attempts: 1, message: "NOT_FOUND"),
                FailedItem(index: 3, item: "t3", code: .unknown("NEW_THING"), attempts: 1, message: nil),
            ],
            backendCalls: 1, receivedAt: received, completedAt: received.addingTimeInterval(0.25))
        let data = try Outcome.encoder().encode(outcome)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""requestId":"r-1""#) && text.contains(#""code":"UNKNOWN(NEW_THING)""#))
        #expect(text.contains("2027-01-15T08:00:00.125Z"))
        let back = try Outcome.decoder().decode(Outcome.self, from: data)
        #expect(back.failedItems == outcome.failedItems && back.counts == outcome.counts && back.status == .partial)
        #expect(abs(back.receivedAt.timeIntervalSince(received)) < 0.001)
        #expect(back.failedItems[0].retryable == false)
        #expect(FailedItem(index: 0, item: "x", code: .internal, attempts: 5, message: nil).retryable)
    }
}
