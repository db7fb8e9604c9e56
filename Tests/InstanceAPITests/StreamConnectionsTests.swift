import Testing

@testable import InstanceAPI

@Suite("HTTP/2 connections: which a call takes, when one opens, when one closes, who waits")
struct StreamConnectionsTests {
    private final class Connection: CustomStringConvertible {
        let name: String
        init(_ name: String) { self.name = name }
        var description: String { name }
    }

    private typealias Pool = StreamConnections<Connection, Int>

    private let origin = BackendOrigin(tls: true, host: "fcm.googleapis.com", port: 443)
    private let other = BackendOrigin(tls: true, host: "iid.googleapis.com", port: 443)
    private let t0 = ContinuousClock.now

    /// A pool with one connection open to `origin` allowing `maxStreams`, its first stream in use.
    private func opened(_ pool: inout Pool, maxStreams: Int, name: String = "a") -> Connection {
        #expect(pool.acquire(origin, waiter: 0, now: t0).choice == .connect)
        let connection = Connection(name)
        _ = pool.connected(connection, origin, maxStreams: maxStreams, now: t0)
        return connection
    }

    @Test("the first call connects; calls share that connection up to the server's stream limit")
    func sharing() {
        var pool = Pool(limit: 8, idleTimeout: .seconds(60))
        let a = opened(&pool, maxStreams: 3)
        #expect(pool.acquire(origin, waiter: 1, now: t0).choice == .stream(a))
        #expect(pool.acquire(origin, waiter: 2, now: t0).choice == .stream(a))
        #expect(pool.streams(on: a, origin) == 3 && pool.connectionCount(origin) == 1)
        // Another origin has connections of its own.
        #expect(pool.acquire(other, waiter: 3, now: t0).choice == .connect)
    }

    @Test("a call past every connection's limit opens another, unless the ones being opened will carry it")
    func connectOnlyWhenFull() {
        var pool = Pool(limit: 8, idleTimeout: .seconds(60), expectedStreams: 2)
        let a = opened(&pool, maxStreams: 1)
        #expect(pool.acquire(origin, waiter: 1, now: t0).choice == .connect)
        // One connection is being opened, expected to carry 2: the next two wait for it.
        #expect(pool.acquire(origin, waiter: 2, now: t0).choice == .wait)
        #expect(pool.acquire(origin, waiter: 3, now: t0).choice == .wait)
        #expect(pool.acquire(origin, waiter: 4, now: t0).choice == .connect)
        let b = Connection("b")
        let outcome = pool.connected(b, origin, maxStreams: 3, now: t0)
        // The connecting call took b's first stream; the two waiting calls the next two.
        #expect(outcome.served.map(\.waiter) == [2, 3] && outcome.served.allSatisfy { $0.connection === b })
        #expect(pool.streams(on: b, origin) == 3 && pool.streams(on: a, origin) == 1)
    }

    @Test("at the limit of connections a call waits, and takes the first stream that ends, first come first served")
    func waitAtLimit() {
        var pool = Pool(limit: 1, idleTimeout: .seconds(60))
        let a = opened(&pool, maxStreams: 1)
        #expect(pool.acquire(origin, waiter: 1, now: t0).choice == .wait)
        #expect(pool.acquire(origin, waiter: 2, now: t0).choice == .wait)
        #expect(pool.waitingCount(origin) == 2)
        let outcome = pool.release(a, origin, now: t0)
        #expect(outcome.served.map(\.waiter) == [1] && outcome.close.isEmpty)
        #expect(pool.streams(on: a, origin) == 1 && pool.waitingCount(origin) == 1)
        // One that gives up is forgotten; one already served cannot give up.
        #expect(pool.cancelWait(2, origin) && !pool.cancelWait(1, origin) && pool.waitingCount(origin) == 0)
    }

    @Test("a connection without streams is kept for the idle timeout, then closed instead of used")
    func idleTimeout() {
        var pool = Pool(limit: 8, idleTimeout: .seconds(60))
        let a = opened(&pool, maxStreams: 10)
        #expect(pool.release(a, origin, now: t0).close.isEmpty)
        #expect(pool.acquire(origin, waiter: 1, now: t0 + .seconds(59)).choice == .stream(a))
        #expect(pool.release(a, origin, now: t0 + .seconds(59)).close.isEmpty)
        let late = pool.acquire(origin, waiter: 2, now: t0 + .seconds(120))
        #expect(late.choice == .connect && late.close.count == 1 && late.close.first === a)
    }

    @Test("a connection in use is never closed for idleness, however long it has been open")
    func noChurnUnderLoad() {
        var pool = Pool(limit: 8, idleTimeout: .seconds(60))
        let a = opened(&pool, maxStreams: 10)
        for second in 1...300 {
            let now = t0 + .seconds(second)
            #expect(pool.acquire(origin, waiter: second, now: now).choice == .stream(a))
            #expect(pool.release(a, origin, now: now).close.isEmpty)
        }
        #expect(pool.connectionCount(origin) == 1)
    }

    @Test("after GOAWAY new calls go to a new connection; the old one closes when its last stream ends")
    func goAway() {
        var pool = Pool(limit: 8, idleTimeout: .seconds(60))
        let a = opened(&pool, maxStreams: 10)
        #expect(pool.acquire(origin, waiter: 1, now: t0).choice == .stream(a))
        #expect(pool.goingAway(a, origin).close.isEmpty)
        #expect(pool.acquire(origin, waiter: 2, now: t0).choice == .connect)
        #expect(pool.release(a, origin, now: t0).close.isEmpty)
        let last = pool.release(a, origin, now: t0)
        #expect(last.close.count == 1 && last.close.first === a && pool.connectionCount(origin) == 0)
    }

    @Test("a call waiting on a full connection that goes away or closes is woken to open another")
    func wokenOnLoss() {
        var pool = Pool(limit: 1, idleTimeout: .seconds(60))
        let a = opened(&pool, maxStreams: 1)
        #expect(pool.acquire(origin, waiter: 1, now: t0).choice == .wait)
        let outcome = pool.goingAway(a, origin)
        #expect(outcome.woken == [1] && outcome.close.isEmpty)
        #expect(pool.acquire(origin, waiter: 1, now: t0).choice == .connect)

        var closing = Pool(limit: 1, idleTimeout: .seconds(60))
        let b = opened(&closing, maxStreams: 1)
        #expect(closing.acquire(origin, waiter: 7, now: t0).choice == .wait)
        #expect(closing.closed(b, origin).woken == [7] && closing.connectionCount(origin) == 0)
    }

    @Test("a failed connect wakes the calls it was to carry; the server raising its limit serves waiting calls")
    func failedConnectAndSettings() {
        var pool = Pool(limit: 2, idleTimeout: .seconds(60), expectedStreams: 5)
        let a = opened(&pool, maxStreams: 1)
        #expect(pool.acquire(origin, waiter: 1, now: t0).choice == .connect)
        #expect(pool.acquire(origin, waiter: 2, now: t0).choice == .wait)
        #expect(pool.connectFailed(origin).woken == [2])
        #expect(pool.acquire(origin, waiter: 3, now: t0).choice == .connect)
        #expect(pool.acquire(origin, waiter: 4, now: t0).choice == .wait)
        let raised = pool.maxStreamsChanged(a, origin, to: 2)
        #expect(raised.served.map(\.waiter) == [4] && raised.served.first?.connection === a)
    }
}
