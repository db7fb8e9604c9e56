import CRdKafka
import Foundation
import Synchronization

/// A thread that serves a producer's or admin client's main queue (delivery reports, errors).
final class RDKafkaPollThread: @unchecked Sendable {
    private let running = Atomic<Bool>(true)
    private let finished = DispatchSemaphore(value: 0)

    init(handle: OpaquePointer) {
        nonisolated(unsafe) let handle = handle  // librdkafka handles are thread-safe
        let thread = Thread { [self] in
            while running.load(ordering: .acquiring) {
                rd_kafka_poll(handle, 100)
            }
            finished.signal()
        }
        thread.name = "rdkafka-poll"
        thread.start()
    }

    func stop() {
        running.store(false, ordering: .releasing)
        finished.wait()
    }
}
