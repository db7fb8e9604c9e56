import DequeModule

/// The HTTP/2 connections of every origin and the calls waiting for a stream: which connection a
/// call takes, when another is opened, when one is closed. Pure, over any connection type, with
/// the time passed in; `BackendTransport` performs what it decides.
///
/// A call takes a stream on the oldest usable connection with one free (calls pack onto few
/// connections; a spare one drains and ages out). A new connection is opened only when every
/// usable one is at the server's `SETTINGS_MAX_CONCURRENT_STREAMS` and the connections being
/// opened will not carry the calls already waiting (each is expected to carry
/// `expectedStreams`), and never more than `limit` per origin; beyond that a call waits, first
/// come first served, for a stream to free. A connection is kept while streams use it; one left
/// without streams for `idleTimeout` is closed. One the server sends GOAWAY on takes no new
/// streams and is closed when its last one ends; one that closed is forgotten. Waiting calls
/// are woken to try again whenever a connection is lost, so one of them opens the next.
struct StreamConnections<Connection: AnyObject, Waiter: Hashable> {
    typealias Instant = ContinuousClock.Instant

    /// What a call does next.
    enum Choice: Equatable {
        /// Open a stream on this connection; it is counted as in use until `release`.
        case stream(Connection)
        /// Open a connection; report it with `connected` or `connectFailed`.
        case connect
        /// Wait for `connected`, `release` or a loss to hand it a stream or wake it.
        case wait

        static func == (lhs: Choice, rhs: Choice) -> Bool {
            switch (lhs, rhs) {
            case (.stream(let left), .stream(let right)): left === right
            case (.connect, .connect), (.wait, .wait): true
            default: false
            }
        }
    }

    /// What becomes of waiting calls and connections after an event.
    struct Outcome {
        /// Waiting calls handed a stream on a connection, each counted as in use.
        var served: [(waiter: Waiter, connection: Connection)] = []
        /// Waiting calls to wake, no longer waiting: they ask again (one will connect).
        var woken: [Waiter] = []
        /// Connections to close.
        var close: [Connection] = []
    }

    private struct Open {
        var connection: Connection
        var streams = 0
        var maxStreams: Int
        var goingAway = false
        var idleSince: Instant
    }

    private struct Origin {
        var open: [Open] = []
        var connecting = 0
        var waiting: Deque<Waiter> = []
    }

    /// Connections per origin, open and being opened.
    let limit: Int
    /// How long a connection without streams is kept.
    let idleTimeout: Duration
    /// The streams a connection being opened is expected to carry: RFC 9113 asks servers for at
    /// least 100, and Google's allow 100.
    let expectedStreams: Int
    private var origins: [BackendOrigin: Origin] = [:]

    init(limit: Int, idleTimeout: Duration, expectedStreams: Int = 100) {
        self.limit = max(1, limit)
        self.idleTimeout = idleTimeout
        self.expectedStreams = max(1, expectedStreams)
    }

    /// Connections open to `origin` (not those being opened).
    func connectionCount(_ origin: BackendOrigin) -> Int { origins[origin]?.open.count ?? 0 }

    /// Streams in use on `connection` of `origin`, nil when it is not open.
    func streams(on connection: Connection, _ origin: BackendOrigin) -> Int? {
        origins[origin]?.open.first { $0.connection === connection }?.streams
    }

    /// Calls waiting for a stream to `origin`.
    func waitingCount(_ origin: BackendOrigin) -> Int { origins[origin]?.waiting.count ?? 0 }

    /// What a call to `origin` at `now` does, `waiter` naming it if it must wait; with the
    /// connections that aged out, to close.
    mutating func acquire(_ origin: BackendOrigin, waiter: Waiter, now: Instant) -> (choice: Choice, close: [Connection]) {
        var state = origins[origin] ?? Origin()
        defer { origins[origin] = state }
        let close = expire(&state, now: now)
        if state.waiting.isEmpty, let index = state.open.firstIndex(where: { !$0.goingAway && $0.streams < $0.maxStreams }) {
            state.open[index].streams += 1
            return (.stream(state.open[index].connection), close)
        }
        let usable = state.open.filter { !$0.goingAway }.count
        if usable + state.connecting < limit, state.waiting.count + 1 > state.connecting * expectedStreams {
            state.connecting += 1
            return (.connect, close)
        }
        state.waiting.append(waiter)
        return (.wait, close)
    }

    /// A waiting call that gave up (its deadline passed, it was cancelled): it is forgotten.
    /// False when it was no longer waiting (it was served or woken first).
    mutating func cancelWait(_ waiter: Waiter, _ origin: BackendOrigin) -> Bool {
        guard var state = origins[origin], let index = state.waiting.firstIndex(of: waiter) else { return false }
        state.waiting.remove(at: index)
        origins[origin] = state
        return true
    }

    /// A connection opened for a call, whose server allows `maxStreams` at once: the call that
    /// opened it takes its first stream, waiting calls the next ones, and those it cannot carry
    /// are woken to open another (within the limit).
    mutating func connected(_ connection: Connection, _ origin: BackendOrigin, maxStreams: Int, now: Instant) -> Outcome {
        var state = origins[origin] ?? Origin()
        defer { origins[origin] = state }
        state.connecting = max(0, state.connecting - 1)
        state.open.append(Open(connection: connection, streams: 1, maxStreams: max(1, maxStreams), idleSince: now))
        // A server that allows fewer streams than `expectedStreams` leaves calls waiting that no
        // connection being opened will carry: they are woken to open the next.
        return wakeUnserved(&state)
    }

    /// A connection being opened failed, or was not HTTP/2. Waiting calls that no connection
    /// being opened will serve are woken.
    mutating func connectFailed(_ origin: BackendOrigin) -> Outcome {
        guard var state = origins[origin] else { return Outcome() }
        defer { origins[origin] = state }
        state.connecting = max(0, state.connecting - 1)
        return wakeUnserved(&state)
    }

    /// A call's stream on `connection` ended at `now`: the stream goes to the first waiting call,
    /// or the connection may close (going away, and its last stream).
    mutating func release(_ connection: Connection, _ origin: BackendOrigin, now: Instant) -> Outcome {
        guard var state = origins[origin], let index = state.open.firstIndex(where: { $0.connection === connection }) else { return Outcome() }
        defer { origins[origin] = state }
        state.open[index].streams -= 1
        if state.open[index].streams == 0 { state.open[index].idleSince = now }
        var outcome = serve(&state)
        if let index = state.open.firstIndex(where: { $0.connection === connection }), state.open[index].goingAway, state.open[index].streams == 0 {
            outcome.close.append(state.open.remove(at: index).connection)
        }
        outcome.close += expire(&state, now: now)
        return outcome
    }

    /// The server changed how many streams it allows on `connection` at once.
    mutating func maxStreamsChanged(_ connection: Connection, _ origin: BackendOrigin, to maxStreams: Int) -> Outcome {
        guard var state = origins[origin], let index = state.open.firstIndex(where: { $0.connection === connection }) else { return Outcome() }
        defer { origins[origin] = state }
        state.open[index].maxStreams = max(1, maxStreams)
        return wakeUnserved(&state)
    }

    /// The server sent GOAWAY on `connection`: it takes no new streams (those open finish or fail
    /// as the server decides) and is closed when it has none; waiting calls are woken to open
    /// another.
    mutating func goingAway(_ connection: Connection, _ origin: BackendOrigin) -> Outcome {
        guard var state = origins[origin], let index = state.open.firstIndex(where: { $0.connection === connection }) else { return Outcome() }
        defer { origins[origin] = state }
        state.open[index].goingAway = true
        var outcome = wakeUnserved(&state)
        if state.open[index].streams == 0 { outcome.close.append(state.open.remove(at: index).connection) }
        return outcome
    }

    /// `connection` closed (either side): it is forgotten; its calls fail on their own, and
    /// waiting calls are woken to open another.
    mutating func closed(_ connection: Connection, _ origin: BackendOrigin) -> Outcome {
        guard var state = origins[origin], let index = state.open.firstIndex(where: { $0.connection === connection }) else { return Outcome() }
        defer { origins[origin] = state.open.isEmpty && state.connecting == 0 && state.waiting.isEmpty ? nil : state }
        state.open.remove(at: index)
        return wakeUnserved(&state)
    }

    /// Every connection and waiting call, all forgotten: to close and fail at shutdown.
    mutating func removeAll() -> (connections: [Connection], waiters: [Waiter]) {
        defer { origins = [:] }
        return (origins.values.flatMap { $0.open.map(\.connection) }, origins.values.flatMap { Array($0.waiting) })
    }

    /// Hands free streams to waiting calls, first come first served.
    private func serve(_ state: inout Origin) -> Outcome {
        var outcome = Outcome()
        for index in state.open.indices where !state.open[index].goingAway {
            while !state.waiting.isEmpty, state.open[index].streams < state.open[index].maxStreams {
                state.open[index].streams += 1
                outcome.served.append((state.waiting.removeFirst(), state.open[index].connection))
            }
        }
        return outcome
    }

    /// Serves what can be served, then wakes the waiting calls the connections being opened will
    /// not carry, when another connection may be opened (each woken call asks again).
    private func wakeUnserved(_ state: inout Origin) -> Outcome {
        var outcome = serve(&state)
        let usable = state.open.filter { !$0.goingAway }.count
        let carried = state.connecting * expectedStreams
        if state.waiting.count > carried, usable + state.connecting < limit {
            while state.waiting.count > carried { outcome.woken.append(state.waiting.removeLast()) }
            outcome.woken.reverse()
        }
        return outcome
    }

    /// Removes and returns the connections without streams for `idleTimeout` by `now`.
    private func expire(_ state: inout Origin, now: Instant) -> [Connection] {
        var aged: [Connection] = []
        state.open.removeAll { open in
            let old = open.streams == 0 && now >= open.idleSince.advanced(by: idleTimeout)
            if old { aged.append(open.connection) }
            return old
        }
        return aged
    }
}
