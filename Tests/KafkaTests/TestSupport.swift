import Kafka
import Synchronization
import Testing

/// Fails the test instead of hanging when `body` takes longer than `seconds` (a guard, not a
/// speed assertion: limits are generous).
func withTimeout<T: Sendable>(
    _ seconds: Int = 120, _ what: String = "test", _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw TestTimeout(what: what, seconds: seconds)
        }
        return value
    }
}

struct TestTimeout: Error, CustomStringConvertible {
    var what: String
    var seconds: Int
    var description: String { "\(what) did not finish within \(seconds) s" }
}

func uniqueName(_ prefix: String) -> String {
    "\(prefix)-\(UInt32.random(in: 0...UInt32.max))"
}

/// Sends `count` records concurrently in `lanes` sequential lanes; returns the reports in lane order.
func produce(
    _ producer: KafkaProducer, topic: String, count: Int, lanes: Int = 8,
    record: @escaping @Sendable (Int) -> (key: [UInt8]?, value: [UInt8]?, headers: [KafkaHeader])
) async throws -> [Int: KafkaDeliveryReport] {
    try await withThrowingTaskGroup(of: [(Int, KafkaDeliveryReport)].self) { group in
        for lane in 0..<lanes {
            group.addTask {
                var reports: [(Int, KafkaDeliveryReport)] = []
                for index in stride(from: lane, to: count, by: lanes) {
                    let r = record(index)
                    reports.append((index, try await producer.send(topic: topic, key: r.key, value: r.value, headers: r.headers)))
                }
                return reports
            }
        }
        var all: [Int: KafkaDeliveryReport] = [:]
        for try await reports in group {
            for (index, report) in reports { all[index] = report }
        }
        return all
    }
}

/// Sends the records "p-i" to each partition `p` of `partitions`, for `i` in `numbers`, one after
/// another.
func produce(_ producer: KafkaProducer, topic: String, partitions: Range<Int32>, numbers: Range<Int>) async throws {
    for p in partitions {
        for i in numbers { _ = try await producer.send(topic: topic, key: nil, value: Array("\(p)-\(i)".utf8), partition: p) }
    }
}

/// Thread-safe collection used by consumer tasks; each append wakes the tests' waits (`Changes`).
final class Collected<Element: Sendable>: Sendable {
    private let items = Mutex<[Element]>([])
    func append(_ element: Element) {
        items.withLock { $0.append(element) }
        Changes.signal()
    }
    var all: [Element] { items.withLock { $0 } }
    var count: Int { items.withLock { $0.count } }
}

/// Reads records from `consumer` until `count` arrived or `duration` passed, whichever is first
/// (the reader and a timer race; the loser is cancelled). Returns the records and every rebalance
/// event seen.
func readRecords(
    _ consumer: KafkaConsumer, count: Int = .max, within duration: Duration
) async throws -> (records: [KafkaRecord], events: [KafkaConsumerEvent]) {
    let records = Collected<KafkaRecord>()
    let events = Collected<KafkaConsumerEvent>()
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask {
            for try await event in consumer.events {
                switch event {
                case .record(let r):
                    records.append(r)
                    if records.count >= count { return }
                default:
                    events.append(event)
                }
            }
        }
        group.addTask { try? await Task.sleep(for: duration) }
        try await group.next()
        group.cancelAll()
        try await group.waitForAll()
    }
    return (records.all, events.all)
}

/// The value of `task`, or a `TestTimeout` after `seconds` (a guard against hangs). Unlike
/// `withTimeout`, it returns even when the task ignores cancellation, which is the failure some
/// tests guard against; the task is cancelled then and left to end on its own.
func value<T: Sendable>(of task: Task<T, Never>, within seconds: Int, _ what: String) async throws -> T {
    let value: T? = await withCheckedContinuation { continuation in
        let first = FirstResume(continuation)
        Task { first.resume(returning: await task.value) }
        Task {
            try? await Task.sleep(for: .seconds(seconds))
            first.resume(returning: nil)
        }
    }
    guard let value else {
        task.cancel()
        throw TestTimeout(what: what, seconds: seconds)
    }
    return value
}

/// Resumes a continuation with the first of several answers; later ones are dropped.
final class FirstResume<T: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<T, Never>?>
    init(_ continuation: CheckedContinuation<T, Never>) { self.continuation = Mutex(continuation) }
    func resume(returning value: T) { continuation.withLock { $0.take() }?.resume(returning: value) }
}
