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
            // Named from inside: on Linux a name set before `start()` never reaches the OS
            // thread, which would keep its creator's name (an event loop's) in `top -H`.
            Thread.current.name = "rdkafka-poll"
            while running.load(ordering: .acquiring) {
                rd_kafka_poll(handle, 100)
            }
            finished.signal()
        }
        thread.start()
    }

    func stop() {
        running.store(false, ordering: .releasing)
        finished.wait()
    }
}
