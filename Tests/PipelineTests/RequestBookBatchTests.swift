import Foundation
import Kafka
import Testing

@testable import Pipeline

/// The request book and batches: every outcome it makes of a record names the record's batch.
@Suite("Request book: outcomes name their batch")
struct RequestBookBatchTests {
    @Test("a duplicate of a request in flight, from another batch, is rejected naming its own batch (its batch's progress counts it)")
    func duplicateNamesItsBatch() {
        let partition = KafkaTopicPartition(topic: "requests", partition: 0)
        var book = RequestBook(maxInFlightItems: 100, maxInFlightBytes: 1 << 30)
        _ = book.assign([partition])
        let first = PipelineRequest(id: "r-1", op: .topicsSubscribe, target: .topic("news"), items: ["t"], batch: "a")
        var again = first
        again.batch = "b"
        for (offset, request) in [first, again].enumerated() {
            let record = KafkaRecord(topic: partition.topic, partition: partition.partition, offset: Int64(offset), key: nil, value: Array(request.jsonBody()))
            let admission = book.receive(record, .success(request), at: Date())
            if offset == 1 {
                guard case .rejected(let publication) = admission else {
                    Issue.record("the duplicate was not rejected: \(admission)")
                    return
                }
                #expect(publication.outcome.batch == "b" && publication.outcome.status == .rejected)
            }
        }
    }
}
