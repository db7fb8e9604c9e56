import Synchronization
import Testing

@testable import Kafka

@Suite("RDKafkaDeliveries: every record's completion runs once, none registered after the close")
struct RDKafkaDeliveriesTests {
    @Test("a record's box asked for after failAll (a send racing the producer's close) is none: it would never be reported")
    func noBoxAfterFailAll() {
        let deliveries = RDKafkaDeliveries()
        let results = Mutex<[String]>([])
        let before = deliveries.make { _ in results.withLock { $0.append("before") } }
        #expect(before != nil)
        deliveries.failAll(with: .queueFull)
        #expect(results.withLock { $0 } == ["before"], "the outstanding one completed by failAll")
        let after = deliveries.make { _ in results.withLock { $0.append("after") } }
        #expect(after == nil, "registered after the close, it would wait for ever")
        before?.finish(.queueFull)
        #expect(results.withLock { $0 } == ["before"], "completed once")
    }
}
