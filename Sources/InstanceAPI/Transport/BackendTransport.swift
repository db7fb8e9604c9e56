import NIOCore
import NIOHTTP1
import NIOSSL
import Synchronization

/// Calls to the backend over kept-alive connections: HTTP/2 to a TLS origin whose server offers
/// it by ALPN (Google's do), many calls at once on a few connections; HTTP/1.1 otherwise (plain
/// `http`, or a TLS server that chose it), one call per connection at a time. One write per call
/// and no per-call machinery beyond the exchange itself.
///
/// HTTP/2: which connection a call takes, when one is opened or closed, is `StreamConnections`'
/// decision: calls pack onto the connections open, another opens only when they are at the
/// server's stream limit, at most `maxHTTP2ConnectionsPerOrigin` per origin; beyond that a call
/// waits for a stream. A connection stays while streams use it and closes after `idleTimeout`
/// without; after a GOAWAY, new calls go to another, and a call the server refused unprocessed
/// is sent again, at most `maxRefusedSends` times in all: a server that refuses every stream
/// fails the call as not sent (`.notConnected`), for the caller's backoff and breaker, rather
/// than having it re-sent at round-trip speed until its deadline. A cancelled call resets its
/// stream, not the connection.
///
/// HTTP/1.1: a call takes an idle connection to its origin, or connects a new one; the
/// connection returns to the idle set when the answer is complete and the server keeps it open.
/// At most `maxIdlePerOrigin` connections stay open between calls, and one idle for
/// `idleTimeout` is closed, not used. A cancelled call closes its connection.
///
/// Every call has a deadline covering connect, waiting for a stream, send and answer. TLS
/// verifies the server's certificate against the system's trust roots (and any the
/// configuration adds) and its host name. Calls in flight are bounded by the caller (the
/// pipelines' concurrency). Safe to share.
final class BackendTransport: Sendable {
    /// A waiting call's outcome: a stream counted for it, or ask again.
    private enum Grant: Sendable {
        case stream(HTTP2BackendConnection)
        case retry
    }

    /// A waiting call as the transport knows it: registered, resolved before it parked, parked.
    private enum Waiting {
        case registered
        case resolved(Result<Grant, any Error>)
        case parked(CheckedContinuation<Grant, any Error>)
    }

    private struct State {
        var idle: IdleConnections<BackendConnection>
        var streams: StreamConnections<HTTP2BackendConnection, UInt64>
        var waiting: [UInt64: Waiting] = [:]
        var nextWaiter: UInt64 = 0
        /// TLS origins whose server chose HTTP/1.1, and when it last did: their connections offer
        /// only that for `http1Hold`, then HTTP/2 again (one front end, or a proxy on the way,
        /// without h2 must not pin the origin to a connection per call for the process's life).
        var http1Origins: [BackendOrigin: ContinuousClock.Instant] = [:]

        /// Whether calls to `origin` go over HTTP/1.1 now.
        func choosesHTTP1(_ origin: BackendOrigin, hold: Duration) -> Bool {
            http1Origins[origin].map { ContinuousClock.now < $0 + hold } ?? false
        }
        var shutDown = false
    }

    private let group: any EventLoopGroup
    private let state: Mutex<State>
    private let connector: BackendConnector
    /// How long an origin that chose HTTP/1.1 is called that way before HTTP/2 is offered again.
    private let http1Hold: Duration

    /// A transport on `group`'s event loops. `tls` carries the trust roots (the system's, and
    /// any extra ones); its ALPN protocols are the transport's to set. An origin whose server
    /// chose HTTP/1.1 is called so for `http1Hold`, then offered HTTP/2 again.
    init(
        group: any EventLoopGroup, maxIdlePerOrigin: Int, maxHTTP2ConnectionsPerOrigin: Int = 8, idleTimeout: Duration = .seconds(60),
        connectTimeout: Duration = .seconds(10), tls: TLSConfiguration = .makeClientConfiguration(), http1Hold: Duration = .seconds(300)
    ) {
        self.group = group
        self.http1Hold = http1Hold
        self.state = Mutex(
            State(
                idle: IdleConnections(limit: maxIdlePerOrigin, idleTimeout: idleTimeout),
                streams: StreamConnections(limit: maxHTTP2ConnectionsPerOrigin, idleTimeout: idleTimeout)))
        self.connector = BackendConnector(group: group, connectTimeout: connectTimeout, tls: tls)
    }

    /// Sends one call and returns the complete answer, of at most `answerLimit` bytes of body.
    /// Throws `TransportError`: bad URL; `.notConnected` when the call was not sent (no
    /// connection could be made, or no stream came free, by `timeout`; the server refused its
    /// stream unprocessed `maxRefusedSends` times; over HTTP/2, its request had not left NIO's
    /// frame handler, unanswered, by `timeout`); no answer by `timeout`, connection closed early,
    /// answer too large; shut down.
    func send(
        _ method: HTTPMethod, _ url: String, headers: HTTPHeaders, body: ByteBuffer?, answerLimit: Int, timeout: Duration
    ) async throws -> TransportAnswer {
        let (origin, target) = try BackendOrigin.split(url)
        let deadline = NIODeadline.now() + TimeAmount(timeout)
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: target, headers: headers)
        head.headers.replaceOrAdd(name: "Host", value: origin.hostHeader)
        if let body {
            head.headers.replaceOrAdd(name: "Content-Length", value: String(body.readableBytes))
        } else if method == .POST || method == .PUT || method == .PATCH {
            head.headers.replaceOrAdd(name: "Content-Length", value: "0")
        }
        if origin.tls, !state.withLock({ $0.choosesHTTP1(origin, hold: http1Hold) }) {
            return try await sendHTTP2(head, body: body, limit: answerLimit, origin: origin, deadline: deadline)
        }
        return try await sendHTTP1(head, body: body, limit: answerLimit, origin: origin, deadline: deadline, connected: nil)
    }

    /// Closes every connection, fails the calls waiting for a stream and refuses new calls; calls
    /// in flight on an HTTP/1.1 connection finish and close theirs.
    func shutdown() {
        let (idle, streams, waiters) = state.withLock { state in
            state.shutDown = true
            let (connections, waiters) = state.streams.removeAll()
            return (state.idle.removeAll(), connections, waiters)
        }
        for connection in idle { connection.close() }
        for connection in streams { connection.close() }
        for waiter in waiters { resolve(waiter, .failure(TransportError.shutDown)) }
    }

    // MARK: HTTP/1.1

    private func sendHTTP1(
        _ head: HTTPRequestHead, body: ByteBuffer?, limit: Int, origin: BackendOrigin, deadline: NIODeadline, connected: BackendConnection?
    ) async throws -> TransportAnswer {
        var connection = connected
        var fresh = connected != nil
        while connection == nil {
            let taken = try state.withLock { state throws(TransportError) in
                guard !state.shutDown else { throw TransportError.shutDown }
                return state.idle.take(origin, now: .now)
            }
            for connection in taken.close { connection.close() }
            guard let idle = taken.connection else { break }
            // One the server closed just as it went idle may not have left the set yet.
            if idle.isActive { connection = idle }
        }
        if connection == nil {
            fresh = true
            if origin.tls {
                guard case .http1(let made) = try await connector.connectTLS(origin, deadline: deadline, offerHTTP2: false, events: http2Events) else {
                    throw TransportError.closedBeforeAnswer
                }
                connection = made
            } else {
                connection = try await connector.connectPlain(origin, deadline: deadline)
            }
        }
        guard let connection else { throw TransportError.closedBeforeAnswer }
        if fresh {
            // A connection the server closes while idle leaves the idle set.
            connection.closeFuture.whenComplete { [weak self] _ in self?.state.withLock { $0.idle.remove(connection, origin) } }
        }
        guard !SendGate.currentIsClosed else {
            let extra = state.withLock { state in state.shutDown ? connection : state.idle.put(connection, origin, now: .now) }
            extra?.close()
            throw TransportError.withdrawn
        }
        let answer = try await withTaskCancellationHandler {
            try await connection.exchange(head, body: body, limit: limit, deadline: deadline).get()
        } onCancel: {
            connection.close()
        }
        if answer.mayCarryNextCall, connection.isActive {
            let extra = state.withLock { state in state.shutDown ? connection : state.idle.put(connection, origin, now: .now) }
            extra?.close()
        } else {
            connection.close()
        }
        return answer
    }

    // MARK: HTTP/2

    private func sendHTTP2(
        _ head: HTTPRequestHead, body: ByteBuffer?, limit: Int, origin: BackendOrigin, deadline: NIODeadline
    ) async throws -> TransportAnswer {
        var refusedSends = 0
        while true {
            // Nothing of this call is out at the top of the loop (it comes back only after a
            // stream the server refused unprocessed, or a connection that was gone).
            guard NIODeadline.now() < deadline else { throw TransportError.notConnected(Self.noStream) }
            guard refusedSends < Self.maxRefusedSends else { throw TransportError.notConnected(Self.refusedEveryTime) }
            // The origin chose HTTP/1.1 while this call waited: it goes that way, rather than
            // each woken call offering h2 in a handshake of its own, one after another.
            if state.withLock({ $0.choosesHTTP1(origin, hold: http1Hold) }) {
                return try await sendHTTP1(head, body: body, limit: limit, origin: origin, deadline: deadline, connected: nil)
            }
            let (choice, close, waiter) = try state.withLock { state throws(TransportError) in
                guard !state.shutDown else { throw TransportError.shutDown }
                state.nextWaiter &+= 1
                let waiter = state.nextWaiter
                let (choice, close) = state.streams.acquire(origin, waiter: waiter, now: .now)
                if choice == .wait { state.waiting[waiter] = .registered }
                return (choice, close, waiter)
            }
            for connection in close { connection.close() }
            let connection: HTTP2BackendConnection
            // Whether this call opened the connection it goes on.
            var openedHere = false
            switch choice {
            case .stream(let open):
                // One closed just now may not have been reported yet: forgotten, and ask again.
                guard open.isActive else {
                    perform(state.withLock { $0.streams.closed(open, origin) })
                    continue
                }
                connection = open
            case .wait:
                guard case .stream(let granted) = try await wait(waiter, origin: origin, deadline: deadline) else { continue }
                guard granted.isActive else {
                    perform(state.withLock { $0.streams.closed(granted, origin) })
                    continue
                }
                connection = granted
            case .connect:
                let connected: BackendConnector.Connected
                do { connected = try await connector.connectTLS(origin, deadline: deadline, offerHTTP2: true, events: http2Events) } catch {
                    perform(state.withLock { $0.streams.connectFailed(origin) })
                    throw error
                }
                switch connected {
                case .http1(let fallback):
                    perform(
                        state.withLock { state in
                            state.http1Origins[origin] = .now
                            return state.streams.connectFailed(origin)
                        })
                    return try await sendHTTP1(head, body: body, limit: limit, origin: origin, deadline: deadline, connected: fallback)
                case .http2(let opened):
                    // Opened after a shutdown: closed, never registered where nothing would close it.
                    let (registered, http1) = state.withLock { state in
                        // Its latest SETTINGS, read under the lock their reports take: one that came
                        // after the first, before this registration, is not lost. The origin's idle
                        // HTTP/1.1 connections (from a while it chose that) are no longer taken.
                        state.shutDown
                            ? (nil, [])
                            : (state.streams.connected(opened, origin, maxStreams: opened.maxStreams, now: .now), state.idle.removeAll(origin))
                    }
                    for connection in http1 { connection.close() }
                    guard let registered else {
                        opened.close()
                        throw TransportError.shutDown
                    }
                    perform(registered)
                    // Registered first, so a connection closed already is forgotten at once.
                    opened.closeFuture.whenComplete { [weak self] _ in
                        guard let self else { return }
                        self.perform(self.state.withLock { $0.streams.closed(opened, origin) })
                    }
                    connection = opened
                    openedHere = true
                }
            }
            // Withdrawn while it waited for its stream or connection: it is not sent.
            guard !SendGate.currentIsClosed else {
                perform(state.withLock { $0.streams.release(connection, origin, now: .now) })
                throw TransportError.withdrawn
            }
            let call = StreamCall()
            do {
                let answer = try await withTaskCancellationHandler {
                    try await connection.exchange(head, body: body, limit: limit, deadline: deadline, call: call).get()
                } onCancel: {
                    call.cancel()
                }
                perform(state.withLock { $0.streams.release(connection, origin, now: .now) })
                return answer
            } catch {
                perform(
                    state.withLock { state in
                        var outcome = state.streams.release(connection, origin, now: .now)
                        // Out of stream ids (or a GOAWAY not reported yet, or silent): no new stream
                        // goes there; without this every call would be handed it again until its
                        // deadline.
                        if error as? TransportError == .noNewStreams {
                            let away = state.streams.goingAway(connection, origin)
                            outcome.served += away.served
                            outcome.woken += away.woken
                            outcome.close += away.close
                        }
                        return outcome
                    })
                // The server did not process it: sent again, on another stream.
                guard connection.refusedUnprocessed(error), !Task.isCancelled else { throw error }
                // Counted when the server refused it, or when the connection this call opened took
                // no stream (a GOAWAY with its SETTINGS: each turn would be a new handshake); one
                // already retiring (out of stream ids, a GOAWAY read before) is not handed out again.
                if error as? TransportError != .noNewStreams || openedHere { refusedSends += 1 }
            }
        }
    }

    /// Why a call whose deadline passed before it could be sent (waiting for a stream, a
    /// connection, or its turn to run) failed: it was not sent.
    private static let noStream = "the call's deadline passed before it could be sent"

    /// How many times an HTTP/2 call is sent when the server refuses it unprocessed each time
    /// (REFUSED_STREAM, above a GOAWAY's last stream):
    /// enough for a GOAWAY's race, after which the refusal is the server's state, not a race.
    static let maxRefusedSends = 4
    /// Why a call the server refused `maxRefusedSends` times failed: it was not processed.
    private static let refusedEveryTime = "the server refused the call's HTTP/2 stream unprocessed \(maxRefusedSends) times"

    /// Parks a call `StreamConnections` told to wait until it is handed a stream, woken, its
    /// deadline passes (`.notConnected`: it was not sent) or it is cancelled.
    private func wait(_ waiter: UInt64, origin: BackendOrigin, deadline: NIODeadline) async throws -> Grant {
        let timer = group.any().scheduleTask(deadline: deadline) { [weak self] in
            self?.giveUp(waiter, origin: origin, TransportError.notConnected(Self.noStream))
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let resolved = state.withLock { state -> Result<Grant, any Error>? in
                    guard case .resolved(let result) = state.waiting[waiter] else {
                        state.waiting[waiter] = .parked(continuation)
                        return nil
                    }
                    state.waiting[waiter] = nil
                    return result
                }
                if let resolved { continuation.resume(with: resolved) }
            }
        } onCancel: {
            giveUp(waiter, origin: origin, CancellationError())
        }
    }

    /// A waiting call stops waiting with `error`, unless it was handed a stream or woken first.
    private func giveUp(_ waiter: UInt64, origin: BackendOrigin, _ error: any Error) {
        guard state.withLock({ $0.streams.cancelWait(waiter, origin) }) else { return }
        resolve(waiter, .failure(error))
    }

    /// Completes a waiting call's wait, now if it is parked, else when it parks.
    private func resolve(_ waiter: UInt64, _ result: Result<Grant, any Error>) {
        let parked = state.withLock { state -> CheckedContinuation<Grant, any Error>? in
            guard case .parked(let continuation) = state.waiting[waiter] else {
                state.waiting[waiter] = .resolved(result)
                return nil
            }
            state.waiting[waiter] = nil
            return continuation
        }
        parked?.resume(with: result)
    }

    /// Does what `StreamConnections` decided: hands out streams, wakes calls, closes connections.
    private func perform(_ outcome: StreamConnections<HTTP2BackendConnection, UInt64>.Outcome) {
        for (waiter, connection) in outcome.served { resolve(waiter, .success(.stream(connection))) }
        for waiter in outcome.woken { resolve(waiter, .success(.retry)) }
        for connection in outcome.close { connection.close() }
    }

    /// What this transport's HTTP/2 connections report, handed to `StreamConnections` (which
    /// ignores a connection it has not registered yet: the first SETTINGS registers it).
    private var http2Events: BackendConnector.HTTP2Events {
        BackendConnector.HTTP2Events(
            maxStreamsChanged: { [weak self] connection, maxStreams in
                guard let self else { return }
                self.perform(self.state.withLock { $0.streams.maxStreamsChanged(connection, connection.origin, to: maxStreams) })
            },
            goingAway: { [weak self] connection in
                guard let self else { return }
                self.perform(self.state.withLock { $0.streams.goingAway(connection, connection.origin) })
            })
    }
}
