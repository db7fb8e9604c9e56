import Foundation
import InstanceAPI
import Kafka
import Testing

@testable import Pipeline

/// Swift's `==` on strings is canonical equivalence: `K` (U+004B) equals the Kelvin sign
/// (U+212A), `é` equals `e` + U+0301. The backend tells them apart by their bytes, so the worker
/// must too: a request's items go out under its own target's bytes (a read-only audit's finding).
@Suite("Targets and ids are told apart by their bytes, as the backend tells them")
struct ByteDistinctTextTests {
    static let ascii = "com.example.K"
    static let kelvin = "com.example.\u{212A}"

    @Test("two imports whose applications differ only in bytes never share a call", arguments: [false, true])
    func importsApart(kelvinFirst: Bool) {
        #expect(Self.ascii == Self.kelvin, "the premise: Swift's == calls them equal")
        let applications = kelvinFirst ? [Self.kelvin, Self.ascii] : [Self.ascii, Self.kelvin]
        var planner = CallPlanner()
        for (handle, application) in applications.enumerated() {
            let target = RequestTarget.apns(application: application, sandbox: false)
            planner.add(PipelineRequest(id: "r\(handle)", op: .apnsImport, target: target, items: ["aa1\(handle)"]), handle: RequestHandle(handle))
        }
        let calls = planner.take(flush: true)
        #expect(calls.map { $0.origins.map(\.request) } == [[0], [1]])
        for (call, application) in zip(calls, applications) {
            guard case .apns(let sent, _) = call.target else {
                Issue.record("\(call.target)")
                continue
            }
            #expect(Array(sent.utf8) == Array(application.utf8), "each call goes out under its own request's application")
        }
    }

    @Test("two group changes whose names differ only in bytes are two groups")
    func groupsApart() {
        var planner = CallPlanner()
        for (handle, name) in ["g-K", "g-\u{212A}"].enumerated() {
            planner.add(
                PipelineRequest(id: "r\(handle)", op: .groupsAdd, target: .group(name: name, key: "k\(handle)"), items: ["t\(handle)"]),
                handle: RequestHandle(handle))
        }
        #expect(planner.take(flush: true).map { $0.origins.map(\.request) } == [[0], [1]])
        #expect(RequestTarget.group(name: "g-K", key: nil) != .group(name: "g-\u{212A}", key: nil))
        #expect(
            OrderingRule.key(op: .groupsAdd, target: .group(name: "g-K", key: nil))
                != OrderingRule.key(op: .groupsAdd, target: .group(name: "g-\u{212A}", key: nil)))
        #expect(RequestTarget.group(name: "g-é", key: nil) == .group(name: "g-é", key: nil), "the same bytes are the same target")
    }

    @Test("an id Swift calls equal to one in flight is refused as its duplicate (dead-lettered, replayable), never merged with it")
    func idsAsOne() {
        // The operator's tools (receipts, reconcile, outcomes --request-id) tell ids apart as
        // Swift does; the worker keeps to the same notion of one id.
        let partition = KafkaTopicPartition(topic: "requests", partition: 0)
        var book = RequestBook(maxInFlightItems: 100, maxInFlightBytes: 1 << 20)
        _ = book.assign([partition])
        var admitted: [Bool] = []
        for (offset, id) in ["r-K", "r-\u{212A}"].enumerated() {
            let request = PipelineRequest(id: id, op: .topicsSubscribe, target: .topic("news"), items: ["t\(offset)"])
            let record = KafkaRecord(topic: partition.topic, partition: partition.partition, offset: Int64(offset), key: nil, value: Array(request.jsonBody()))
            if case .admitted = book.receive(record, .success(request), at: Date()) { admitted.append(true) } else { admitted.append(false) }
        }
        #expect(admitted == [true, false])
    }
}
