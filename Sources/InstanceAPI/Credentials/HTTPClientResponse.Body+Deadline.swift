import AsyncHTTPClient
import NIOCore

extension HTTPClientResponse.Body {
    /// At most `limit` bytes of the body, read before `deadline`; past it the read is cancelled
    /// (and with it the request) and this throws `HTTPClientError.deadlineExceeded`.
    /// AsyncHTTPClient's own deadline ends with the answer's head, so a server that sends a head
    /// and stalls in its body would otherwise be waited for with no end.
    func collect(upTo limit: Int, before deadline: ContinuousClock.Instant) async throws -> ByteBuffer {
        try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
            group.addTask { try await self.collect(upTo: limit) }
            group.addTask {
                try await Task.sleep(until: deadline, clock: .continuous)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let collected = first else { throw HTTPClientError.deadlineExceeded }
            return collected
        }
    }
}
