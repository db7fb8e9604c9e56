import CommandSupport
/// Runs a number of calls with bounded concurrency and reports throughput and latency.
enum BenchCalls {
    struct Figures {
        var seconds: Double
        var callsPerSecond: Double
        var p50Milliseconds: Double
        var p99Milliseconds: Double
    }

    static func run(calls: Int, concurrency: Int, _ call: @escaping @Sendable (Int) async throws -> Void) async throws -> Figures {
        let clock = ContinuousClock()
        let started = clock.now
        let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
            for worker in 0..<concurrency {
                group.addTask {
                    var mine: [Double] = []
                    for index in stride(from: worker, to: calls, by: concurrency) {
                        let callStarted = clock.now
                        try await call(index)
                        mine.append((clock.now - callStarted).seconds * 1000)
                    }
                    return mine
                }
            }
            var all: [Double] = []
            for try await some in group { all += some }
            return all.sorted()
        }
        let seconds = (clock.now - started).seconds
        func percentile(_ p: Double) -> Double { latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] }
        return Figures(seconds: seconds, callsPerSecond: Double(calls) / seconds, p50Milliseconds: percentile(0.5), p99Milliseconds: percentile(0.99))
    }
}
