import Testing

@testable import InstanceAPI

@Suite("Idle connections: which a call takes, which are kept, which are closed")
struct IdleConnectionsTests {
    private final class Connection {
        let name: String
        init(_ name: String) { self.name = name }
    }

    private let origin = BackendOrigin(tls: true, host: "iid.googleapis.com", port: 443)
    private let other = BackendOrigin(tls: false, host: "127.0.0.1", port: 8089)
    private let t0 = ContinuousClock.now

    @Test("a call takes the connection that went idle last, and only one of its own origin")
    func lastInFirstOut() {
        var idle = IdleConnections<Connection>(limit: 4, idleTimeout: .seconds(60))
        let a = Connection("a")
        let b = Connection("b")
        #expect(idle.put(a, origin, now: t0) == nil && idle.put(b, origin, now: t0 + .seconds(1)) == nil)
        #expect(idle.take(other, now: t0 + .seconds(2)).connection == nil)
        #expect(idle.take(origin, now: t0 + .seconds(2)).connection === b)
        #expect(idle.take(origin, now: t0 + .seconds(2)).connection === a)
        #expect(idle.take(origin, now: t0 + .seconds(2)).connection == nil && idle.count == 0)
    }

    @Test("an origin called another way again gives up all its idle connections at once; others keep theirs")
    func removeOrigin() {
        var idle = IdleConnections<Connection>(limit: 4, idleTimeout: .seconds(60))
        let (a, b, c) = (Connection("a"), Connection("b"), Connection("c"))
        _ = (idle.put(a, origin, now: t0), idle.put(b, origin, now: t0), idle.put(c, other, now: t0))
        let removed = idle.removeAll(origin)
        #expect(removed.count == 2 && removed.contains { $0 === a } && removed.contains { $0 === b })
        #expect(idle.take(origin, now: t0).connection == nil && idle.count == 1)
    }

    @Test("past the limit a connection handed back is the one to close")
    func limit() {
        var idle = IdleConnections<Connection>(limit: 2, idleTimeout: .seconds(60))
        let connections = (0..<3).map { Connection("\($0)") }
        let closed = connections.map { idle.put($0, origin, now: t0) }
        #expect(closed[0] == nil && closed[1] == nil && closed[2] === connections[2])
        #expect(idle.count == 2 && idle.put(Connection("other origin"), other, now: t0) == nil)
    }

    @Test("a connection idle for the timeout is closed, not used; younger ones stay")
    func ageing() {
        var idle = IdleConnections<Connection>(limit: 4, idleTimeout: .seconds(60))
        let old = Connection("old")
        let older = Connection("older")
        let young = Connection("young")
        _ = idle.put(older, origin, now: t0)
        _ = idle.put(old, origin, now: t0 + .seconds(10))
        _ = idle.put(young, origin, now: t0 + .seconds(50))
        let taken = idle.take(origin, now: t0 + .seconds(70))
        #expect(taken.connection === young && taken.close.count == 2 && taken.close[0] === older && taken.close[1] === old)
        #expect(idle.count == 0)
    }

    @Test("a connection the server closed is forgotten; shutdown takes every idle connection")
    func removal() {
        var idle = IdleConnections<Connection>(limit: 4, idleTimeout: .seconds(60))
        let a = Connection("a")
        let b = Connection("b")
        _ = idle.put(a, origin, now: t0)
        _ = idle.put(b, other, now: t0)
        idle.remove(a, origin)
        #expect(idle.take(origin, now: t0).connection == nil)
        let all = idle.removeAll()
        #expect(all.count == 1 && all[0] === b && idle.count == 0)
    }
}
