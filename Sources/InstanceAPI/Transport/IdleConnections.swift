/// The kept-alive connections not in use, by origin: which one a call takes, which are kept and
/// which are closed. Pure, over any connection type, with the time passed in; `BackendTransport`
/// performs what it decides.
///
/// A call takes the connection that went idle last (its TCP and TLS state are warmest, and the
/// ones left unused age out). At most `limit` connections are kept idle per origin; one idle
/// for `idleTimeout` or longer is closed rather than used, before a server that closes idle
/// connections does so mid-call.
struct IdleConnections<Connection: AnyObject> {
    typealias Instant = ContinuousClock.Instant

    private struct Kept {
        var connection: Connection
        var since: Instant
    }

    /// Idle connections kept per origin.
    let limit: Int
    /// How long a connection is kept idle.
    let idleTimeout: Duration
    private var kept: [BackendOrigin: [Kept]] = [:]

    init(limit: Int, idleTimeout: Duration) {
        self.limit = max(0, limit)
        self.idleTimeout = idleTimeout
    }

    /// The connections idle now, all origins.
    var count: Int { kept.values.reduce(0) { $0 + $1.count } }

    /// A connection to `origin` for a call at `now`, or nil when none is idle (connect a new
    /// one); with the idle connections that aged out, to be closed.
    mutating func take(_ origin: BackendOrigin, now: Instant) -> (connection: Connection?, close: [Connection]) {
        var stack = kept[origin] ?? []
        // Connections are kept in the order they went idle, so the aged ones lead.
        let firstFresh = stack.firstIndex { now < $0.since.advanced(by: idleTimeout) } ?? stack.count
        let aged = stack[..<firstFresh].map(\.connection)
        stack.removeFirst(firstFresh)
        let taken = stack.popLast()?.connection
        kept[origin] = stack.isEmpty ? nil : stack
        return (taken, aged)
    }

    /// Hands back a connection whose call ended with a complete answer on a live connection; the
    /// connection to close when `limit` are kept already (the one handed back), else nil.
    mutating func put(_ connection: Connection, _ origin: BackendOrigin, now: Instant) -> Connection? {
        var stack = kept[origin] ?? []
        guard stack.count < limit else { return connection }
        stack.append(Kept(connection: connection, since: now))
        kept[origin] = stack
        return nil
    }

    /// Forgets a connection the server closed while it was idle.
    mutating func remove(_ connection: Connection, _ origin: BackendOrigin) {
        guard var stack = kept[origin] else { return }
        stack.removeAll { $0.connection === connection }
        kept[origin] = stack.isEmpty ? nil : stack
    }

    /// Every idle connection to `origin`, forgotten: to close once the origin is called another
    /// way (over HTTP/2 again, after its server chose HTTP/1.1 for a while).
    mutating func removeAll(_ origin: BackendOrigin) -> [Connection] {
        defer { kept[origin] = nil }
        return kept[origin]?.map(\.connection) ?? []
    }

    /// Every idle connection, all forgotten: to close at shutdown.
    mutating func removeAll() -> [Connection] {
        defer { kept = [:] }
        return kept.values.flatMap { $0.map(\.connection) }
    }
}
