import Testing

@testable import InstanceAPI

/// Issue 33's review: a server that allows fewer streams than a connection being opened was
/// expected to carry leaves calls waiting; they are woken to open another connection.
@Suite("HTTP/2 connections: a stream limit below the expected one")
struct StreamConnectionsReviewTests {
    private final class Connection {}

    private let origin = BackendOrigin(tls: true, host: "fcm.googleapis.com", port: 443)
    private let t0 = ContinuousClock.now

    @Test("a connection that allows 10 streams serves 9 waiting calls and wakes the other 41 to open more")
    func fewerStreamsThanExpected() {
        var pool = StreamConnections<Connection, Int>(limit: 4, idleTimeout: .seconds(60))
        #expect(pool.acquire(origin, waiter: 0, now: t0).choice == .connect)
        for waiter in 1...50 { #expect(pool.acquire(origin, waiter: waiter, now: t0).choice == .wait) }
        let outcome = pool.connected(Connection(), origin, maxStreams: 10, now: t0)
        #expect(outcome.served.count == 9)
        #expect(outcome.woken.count == 41, "no connection is being opened for them: they must ask again")
        guard outcome.woken.count >= 2 else { return }
        // Woken, the first asks again and opens the next connection; the rest wait for it.
        #expect(pool.acquire(origin, waiter: outcome.woken[0], now: t0).choice == .connect)
        #expect(pool.acquire(origin, waiter: outcome.woken[1], now: t0).choice == .wait)
    }
}
