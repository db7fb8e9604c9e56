import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import NIOTLS
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
/// is sent again on another. A cancelled call resets its stream, not the connection.
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

    /// A new TLS connection once its protocol is known.
    private enum Connected: Sendable {
        case http1(BackendConnection)
        case http2(HTTP2BackendConnection, maxStreams: Int)
    }

    private struct State {
        var idle: IdleConnections<BackendConnection>
        var streams: StreamConnections<HTTP2BackendConnection, UInt64>
        var waiting: [UInt64: Waiting] = [:]
        var nextWaiter: UInt64 = 0
        /// TLS origins whose server chose HTTP/1.1: their connections offer only that from then on.
        var http1Origins: Set<BackendOrigin> = []
        var tls: NIOSSLContext?
        var tlsHTTP1: NIOSSLContext?
        var shutDown = false
    }

    private let group: any EventLoopGroup
    private let state: Mutex<State>
    private let connectTimeout: Duration
    private let tlsConfiguration: TLSConfiguration
    /// The largest answer body taken, in bytes.
    let bodyLimit: Int

    /// A transport on `group`'s event loops. `tls` carries the trust roots (the system's, and
    /// any extra ones); its ALPN protocols are the transport's to set.
    init(
        group: any EventLoopGroup, maxIdlePerOrigin: Int, maxHTTP2ConnectionsPerOrigin: Int = 8, idleTimeout: Duration = .seconds(60),
        connectTimeout: Duration = .seconds(10), bodyLimit: Int = 32 << 20, tls: TLSConfiguration = .makeClientConfiguration()
    ) {
        self.tlsConfiguration = tls
        self.group = group
        self.state = Mutex(
            State(
                idle: IdleConnections(limit: maxIdlePerOrigin, idleTimeout: idleTimeout),
                streams: StreamConnections(limit: maxHTTP2ConnectionsPerOrigin, idleTimeout: idleTimeout)))
        self.connectTimeout = connectTimeout
        self.bodyLimit = bodyLimit
    }

    /// Sends one call and returns the complete answer. Throws `TransportError` (bad URL, no answer
    /// by `timeout`, connection closed early, answer too large, shut down), or NIO's own error when
    /// connecting or TLS fails.
    func send(_ method: HTTPMethod, _ url: String, headers: HTTPHeaders, body: ByteBuffer?, timeout: Duration) async throws -> TransportAnswer {
        let (origin, target) = try BackendOrigin.split(url)
        let deadline = NIODeadline.now() + TimeAmount(timeout)
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: target, headers: headers)
        head.headers.replaceOrAdd(name: "Host", value: origin.hostHeader)
        if let body {
            head.headers.replaceOrAdd(name: "Content-Length", value: String(body.readableBytes))
        } else if method == .POST || method == .PUT || method == .PATCH {
            head.headers.replaceOrAdd(name: "Content-Length", value: "0")
        }
        if origin.tls, !state.withLock({ $0.http1Origins.contains(origin) }) {
            return try await sendHTTP2(head, body: body, origin: origin, deadline: deadline)
        }
        return try await sendHTTP1(head, body: body, origin: origin, deadline: deadline, connected: nil)
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
        _ head: HTTPRequestHead, body: ByteBuffer?, origin: BackendOrigin, deadline: NIODeadline, connected: BackendConnection?
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
                guard case .http1(let made) = try await connectTLS(origin, deadline: deadline, offerHTTP2: false) else {
                    throw TransportError.closedBeforeAnswer
                }
                connection = made
            } else {
                connection = try await connectPlain(origin, deadline: deadline)
            }
        }
        guard let connection else { throw TransportError.closedBeforeAnswer }
        if fresh {
            // A connection the server closes while idle leaves the idle set.
            connection.closeFuture.whenComplete { [weak self] _ in self?.state.withLock { $0.idle.remove(connection, origin) } }
        }
        let answer = try await withTaskCancellationHandler {
            try await connection.exchange(head, body: body, deadline: deadline).get()
        } onCancel: {
            connection.close()
        }
        if answer.keepAlive, connection.isActive {
            let extra = state.withLock { state in state.shutDown ? connection : state.idle.put(connection, origin, now: .now) }
            extra?.close()
        } else {
            connection.close()
        }
        return answer
    }

    private func connectPlain(_ origin: BackendOrigin, deadline: NIODeadline) async throws -> BackendConnection {
        let remaining = deadline - .now()
        guard remaining > .zero else { throw TransportError.timedOut }
        let bodyLimit = self.bodyLimit
        let channel = try await ClientBootstrap(group: group)
            .connectTimeout(min(TimeAmount(connectTimeout), remaining))
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(HTTPExchangeHandler(bodyLimit: bodyLimit))
                }
            }
            .connect(host: origin.host, port: origin.port).get()
        return try await channel.eventLoop.submit {
            BackendConnection(origin: origin, channel: channel, handler: try channel.pipeline.syncOperations.handler(type: HTTPExchangeHandler.self))
        }.get()
    }

    // MARK: HTTP/2

    private func sendHTTP2(_ head: HTTPRequestHead, body: ByteBuffer?, origin: BackendOrigin, deadline: NIODeadline) async throws -> TransportAnswer {
        while true {
            guard NIODeadline.now() < deadline else { throw TransportError.timedOut }
            // The origin chose HTTP/1.1 while this call waited: it goes that way, rather than
            // each woken call offering h2 in a handshake of its own, one after another.
            if state.withLock({ $0.http1Origins.contains(origin) }) {
                return try await sendHTTP1(head, body: body, origin: origin, deadline: deadline, connected: nil)
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
                let connected: Connected
                do { connected = try await connectTLS(origin, deadline: deadline, offerHTTP2: true) } catch {
                    perform(state.withLock { $0.streams.connectFailed(origin) })
                    throw error
                }
                switch connected {
                case .http1(let fallback):
                    perform(
                        state.withLock { state in
                            state.http1Origins.insert(origin)
                            return state.streams.connectFailed(origin)
                        })
                    return try await sendHTTP1(head, body: body, origin: origin, deadline: deadline, connected: fallback)
                case .http2(let opened, let maxStreams):
                    // Opened after a shutdown: closed, never registered where nothing would close it.
                    let registered = state.withLock { state -> StreamConnections<HTTP2BackendConnection, UInt64>.Outcome? in
                        state.shutDown ? nil : state.streams.connected(opened, origin, maxStreams: maxStreams, now: .now)
                    }
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
                }
            }
            let call = StreamCall()
            do {
                let answer = try await withTaskCancellationHandler {
                    try await connection.exchange(head, body: body, deadline: deadline, call: call).get()
                } onCancel: {
                    call.cancel()
                }
                perform(state.withLock { $0.streams.release(connection, origin, now: .now) })
                return answer
            } catch {
                perform(
                    state.withLock { state in
                        var outcome = state.streams.release(connection, origin, now: .now)
                        // Out of stream ids (or a GOAWAY not reported yet): no new stream goes
                        // there; without this every call would be handed it again until its deadline.
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
            }
        }
    }

    /// Parks a call `StreamConnections` told to wait until it is handed a stream, woken, its
    /// deadline passes (`.timedOut`) or it is cancelled.
    private func wait(_ waiter: UInt64, origin: BackendOrigin, deadline: NIODeadline) async throws -> Grant {
        let timer = group.any().scheduleTask(deadline: deadline) { [weak self] in self?.giveUp(waiter, origin: origin, TransportError.timedOut) }
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

    /// Connects to a TLS origin and learns its protocol by ALPN: an HTTP/2 connection once the
    /// server's first SETTINGS arrived, or an HTTP/1.1 one. Bounded by `deadline`.
    private func connectTLS(_ origin: BackendOrigin, deadline: NIODeadline, offerHTTP2: Bool) async throws -> Connected {
        let tls = try tlsContext(offerHTTP2: offerHTTP2)
        let remaining = deadline - .now()
        guard remaining > .zero else { throw TransportError.timedOut }
        let bodyLimit = self.bodyLimit
        let serverName = Self.isIPAddress(origin.host) ? nil : origin.host
        let negotiated = group.any().makePromise(of: Connected.self)
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: group)
                .connectTimeout(min(TimeAmount(connectTimeout), remaining))
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .channelInitializer { [weak self] channel in
                    channel.eventLoop.makeCompletedFuture {
                        let sync = channel.pipeline.syncOperations
                        try sync.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverName))
                        try sync.addHandler(ConnectFailureHandler { negotiated.fail($0) })
                        try sync.addHandler(
                            ApplicationProtocolNegotiationHandler { result, channel in
                                channel.eventLoop.makeCompletedFuture {
                                    if case .negotiated("h2") = result {
                                        try Self.configureHTTP2(channel, origin: origin, bodyLimit: bodyLimit, negotiated: negotiated, transport: self)
                                    } else {
                                        let handler = HTTPExchangeHandler(bodyLimit: bodyLimit)
                                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                                        try channel.pipeline.syncOperations.addHandler(handler)
                                        negotiated.succeed(.http1(BackendConnection(origin: origin, channel: channel, handler: handler)))
                                    }
                                }
                            })
                    }
                }
                .connect(host: origin.host, port: origin.port).get()
        } catch {
            negotiated.fail(error)
            throw error
        }
        let timer = channel.eventLoop.scheduleTask(deadline: deadline) {
            negotiated.fail(TransportError.timedOut)
            channel.close(promise: nil)
        }
        channel.closeFuture.whenComplete { _ in negotiated.fail(TransportError.closedBeforeAnswer) }
        defer { timer.cancel() }
        return try await negotiated.futureResult.get()
    }

    /// Makes `channel`, whose server chose `h2`, an HTTP/2 connection: frames, the watcher of the
    /// server's settings and GOAWAY, the handler carrying the calls. `negotiated` completes on the
    /// first SETTINGS; later ones and GOAWAY go to `transport`'s `StreamConnections`.
    private static func configureHTTP2(
        _ channel: any Channel, origin: BackendOrigin, bodyLimit: Int, negotiated: EventLoopPromise<Connected>, transport: BackendTransport?
    ) throws {
        let handler = HTTP2CallHandler(bodyLimit: bodyLimit)
        let connection = HTTP2BackendConnection(origin: origin, channel: channel, handler: handler)
        let watcher = HTTP2ConnectionWatcher(
            settings: { [weak transport] maxStreams in
                negotiated.succeed(.http2(connection, maxStreams: maxStreams))
                guard let transport else { return }
                transport.perform(transport.state.withLock { $0.streams.maxStreamsChanged(connection, origin, to: maxStreams) })
            },
            goAway: { [weak transport] lastStreamID in
                connection.wentAway(lastStreamID: lastStreamID)
                guard let transport else { return }
                transport.perform(transport.state.withLock { $0.streams.goingAway(connection, origin) })
            })
        let sync = channel.pipeline.syncOperations
        try sync.addHandler(NIOHTTP2Handler(mode: .client, initialSettings: HTTP2CallHandler.initialSettings))
        try sync.addHandler(watcher)
        try sync.addHandler(handler)
    }

    /// The TLS context, made on first use: the configured trust roots, full verification, ALPN
    /// `h2` and `http/1.1` (or only `http/1.1`, for an origin that chose it before).
    private func tlsContext(offerHTTP2: Bool) throws -> NIOSSLContext {
        try state.withLock { state in
            if let context = offerHTTP2 ? state.tls : state.tlsHTTP1 { return context }
            var configuration = tlsConfiguration
            configuration.applicationProtocols = offerHTTP2 ? ["h2", "http/1.1"] : ["http/1.1"]
            let context = try NIOSSLContext(configuration: configuration)
            if offerHTTP2 { state.tls = context } else { state.tlsHTTP1 = context }
            return context
        }
    }

    /// Whether `host` is an IPv4 or IPv6 address, which TLS does not send as the server name.
    private static func isIPAddress(_ host: String) -> Bool {
        host.contains(":") || (!host.isEmpty && host.utf8.allSatisfy { $0 == UInt8(ascii: ".") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
    }
}
