import CRdKafka
import Foundation
import Synchronization

/// A thread that serves a producer's or admin client's main queue (delivery reports, errors).
final class RDKafkaPollThread: @unchecked Sendable {
    private let running = Atomic<Bool>(true)
    private let finished = DispatchSemaphore(value: 0)

    init(handle: OpaquePointer) {
        nonisolated(unsafe) let handle = handle  // librdkafka handles are thread-safe
        Thread.start(named: "rdkafka-poll") { [self] in
            while running.load(ordering: .acquiring) {
                rd_kafka_poll(handle, 100)
            }
            finished.signal()
        }
    }

    func stop() {
        running.store(false, ordering: .releasing)
        finished.wait()
    }
}
