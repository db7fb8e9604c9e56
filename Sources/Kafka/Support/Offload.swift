import Dispatch

/// Runs a blocking librdkafka call (commit, flush, close, metadata) on a Dispatch thread, so that
/// it never blocks a thread of Swift's cooperative pool.
func offload<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(returning: body())
        }
    }
}
