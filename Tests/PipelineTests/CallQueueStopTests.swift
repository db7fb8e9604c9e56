import InstanceAPI
import Testing

@testable import Pipeline

/// Issue 33's field profile: a refusal that holds for every waiting job stops the queue asking,
/// and the keys keep their turns.
@Suite("Call queue: stop asking when nothing more may start")
struct CallQueueStopTests {
    private func job(_ id: Int, topic: String) -> CallJob {
        var job = CallJob(
            call: PlannedCall(op: .topicsSubscribe, target: .topic(topic), items: ["t\(id)"], origins: [.init(request: RequestHandle(id), index: 0)]),
            api: .batchAdd)
        job.id = id
        return job
    }

    @Test("a stop ends the scan at the first key asked, which keeps its turn; a skip asks every key")
    func stopEndsTheScan() {
        var queue = CallQueue()
        for n in 0..<64 { queue.enqueue(job(n, topic: "topic-\(n)")) }
        #expect(Array(queue.waitingOps) == [.topicsSubscribe])
        var asked: [Int] = []
        #expect(
            queue.next(allowed: {
                asked.append($0.id)
                return .stop
            }) == nil)
        #expect(asked == [0], "one job asked, not 64")
        asked = []
        #expect(
            queue.next(allowed: {
                asked.append($0.id)
                return .skip
            }) == nil)
        #expect(asked.count == 64, "a skip asks each key in turn")
        #expect(queue.next(allowed: { _ in .start })?.id == 0, "the first key kept its turn through both")
        #expect(queue.count == 63)
        while queue.next(allowed: { _ in .start }) != nil {}
        #expect(queue.count == 0 && queue.waitingOps.isEmpty, "ops are uncounted as their jobs start")
    }
}
