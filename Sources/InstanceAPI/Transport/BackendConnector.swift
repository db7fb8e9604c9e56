import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import NIOTLS
import Synchronization

/// Opens connections to backend origins for `BackendTransport`: plain HTTP/1.1, or TLS whose
/// protocol the server picks by ALPN (`h2` or `http/1.1`). Each open is bounded by the call's
/// deadline and the connect timeout; TLS verifies the server's certificate against the
/// configured trust roots and its host name (not sent for an IP address). Which connection a call
/// takes, and when one opens or closes, is the transport's.
final class BackendConnector: Sendable {
    /// A new TLS connection once its protocol is known.
    enum Connected: Sendable {
        case http1(BackendConnection)
        case http2(HTTP2BackendConnection)
    }

    /// What an HTTP/2 connection tells its transport: every SETTINGS of its server (the first
    /// also completes the connect; the transport knows the connection only after it), and a
    /// GOAWAY (the connection has noted it).
    struct HTTP2Events: Sendable {
        /// The server's `SETTINGS_MAX_CONCURRENT_STREAMS` changed.
        var maxStreamsChanged: @Sendable (HTTP2BackendConnection, Int) -> Void
        /// The server sent GOAWAY.
        var goingAway: @Sendable (HTTP2BackendConnection) -> Void
    }

    /// The TLS contexts, made on first use: offering `h2` and `http/1.1`, and `http/1.1` only.
    private struct Contexts {
        var offeringHTTP2: NIOSSLContext?
        var http1Only: NIOSSLContext?
    }

    private let group: any EventLoopGroup
    private let connectTimeout: Duration
    /// The bytes every connection's answers may hold together while being read.
    private let budget: AnswerBudget
    private let tlsConfiguration: TLSConfiguration
    private let contexts = Mutex(Contexts())

    /// A connector on `group`'s event loops; `tls` carries the trust roots, its ALPN protocols
    /// are the connector's to set.
    init(group: any EventLoopGroup, connectTimeout: Duration, tls: TLSConfiguration, budget: AnswerBudget = AnswerBudget()) {
        self.group = group
        self.connectTimeout = connectTimeout
        self.budget = budget
        self.tlsConfiguration = tls
    }

    /// A plain HTTP/1.1 connection to `origin`, by `deadline`. Throws `.notConnected` when none
    /// could be made.
    func connectPlain(_ origin: BackendOrigin, deadline: NIODeadline) async throws -> BackendConnection {
        try await notSentUnlessConnected { try await openPlain(origin, deadline: deadline) }
    }

    /// Connects to a TLS origin and learns its protocol by ALPN (offering `h2` only with
    /// `offerHTTP2`): an HTTP/2 connection once the server's first SETTINGS arrived, reporting
    /// every SETTINGS and GOAWAY to `events`, or an HTTP/1.1 one. Bounded by `deadline`. Throws
    /// `.notConnected` when none could be made.
    func connectTLS(_ origin: BackendOrigin, deadline: NIODeadline, offerHTTP2: Bool, events: HTTP2Events) async throws -> Connected {
        try await notSentUnlessConnected { try await openTLS(origin, deadline: deadline, offerHTTP2: offerHTTP2, events: events) }
    }

    /// `open`'s connection; any failure to make it (refused, no such host, the TLS handshake,
    /// the deadline) as `.notConnected`: no call was sent on it. A shutdown or a cancellation
    /// stays what it is.
    private func notSentUnlessConnected<Made>(_ open: () async throws -> Made) async throws -> Made {
        do { return try await open() } catch let error as TransportError where error == .shutDown {
            throw error
        } catch let error as TransportError where error == .timedOut {
            throw TransportError.notConnected("none within the call's deadline")
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw TransportError.notConnected(HTTPFailure.describe(error))
        }
    }

    private func openPlain(_ origin: BackendOrigin, deadline: NIODeadline) async throws -> BackendConnection {
        let remaining = deadline - .now()
        guard remaining > .zero else { throw TransportError.timedOut }
        let budget = self.budget
        let channel = try await ClientBootstrap(group: group)
            .connectTimeout(min(TimeAmount(connectTimeout), remaining))
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(HTTPExchangeHandler(budget: budget))
                }
            }
            .connect(host: origin.host, port: origin.port).get()
        return try await channel.eventLoop.submit {
            BackendConnection(origin: origin, channel: channel, handler: try channel.pipeline.syncOperations.handler(type: HTTPExchangeHandler.self))
        }.get()
    }

    private func openTLS(_ origin: BackendOrigin, deadline: NIODeadline, offerHTTP2: Bool, events: HTTP2Events) async throws -> Connected {
        let tls = try context(offerHTTP2: offerHTTP2)
        let remaining = deadline - .now()
        guard remaining > .zero else { throw TransportError.timedOut }
        let serverName = Self.isIPAddress(origin.host) ? nil : origin.host
        let negotiated = group.any().makePromise(of: Connected.self)
        let budget = self.budget
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: group)
                .connectTimeout(min(TimeAmount(connectTimeout), remaining))
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let sync = channel.pipeline.syncOperations
                        try sync.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverName))
                        try sync.addHandler(ConnectFailureHandler { negotiated.fail($0) })
                        try sync.addHandler(
                            ApplicationProtocolNegotiationHandler { result, channel in
                                channel.eventLoop.makeCompletedFuture {
                                    if case .negotiated("h2") = result {
                                        try Self.configureHTTP2(channel, origin: origin, negotiated: negotiated, events: events, budget: budget)
                                    } else {
                                        let handler = HTTPExchangeHandler(budget: budget)
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
    /// first SETTINGS; every SETTINGS and GOAWAY goes to `events`.
    private static func configureHTTP2(
        _ channel: any Channel, origin: BackendOrigin, negotiated: EventLoopPromise<Connected>, events: HTTP2Events, budget: AnswerBudget
    ) throws {
        let handler = HTTP2CallHandler(budget: budget)
        let connection = HTTP2BackendConnection(origin: origin, channel: channel, handler: handler)
        let watcher = HTTP2ConnectionWatcher(
            settings: { maxStreams in
                // Kept on the connection first: the transport registers it with the latest value,
                // and a change it reports before then (for a connection not yet known) is not lost.
                connection.announced(maxStreams: maxStreams)
                negotiated.succeed(.http2(connection))
                events.maxStreamsChanged(connection, maxStreams)
            },
            goAway: { lastStreamID in
                connection.wentAway(lastStreamID: lastStreamID)
                events.goingAway(connection)
            })
        let sync = channel.pipeline.syncOperations
        var configuration = NIOHTTP2Handler.ConnectionConfiguration()
        configuration.initialSettings = HTTP2CallHandler.initialSettings
        // The call handler learns when each request has left (a call NIO still holds at its
        // deadline was not sent).
        try sync.addHandler(NIOHTTP2Handler(mode: .client, frameDelegate: handler, connectionConfiguration: configuration))
        try sync.addHandler(watcher)
        try sync.addHandler(handler)
    }

    /// The TLS context, made on first use: the configured trust roots, full verification, ALPN
    /// `h2` and `http/1.1` (or only `http/1.1`, for an origin that chose it before).
    private func context(offerHTTP2: Bool) throws -> NIOSSLContext {
        try contexts.withLock { contexts in
            if let context = offerHTTP2 ? contexts.offeringHTTP2 : contexts.http1Only { return context }
            var configuration = tlsConfiguration
            configuration.applicationProtocols = offerHTTP2 ? ["h2", "http/1.1"] : ["http/1.1"]
            let context = try NIOSSLContext(configuration: configuration)
            if offerHTTP2 { contexts.offeringHTTP2 = context } else { contexts.http1Only = context }
            return context
        }
    }

    /// Whether `host` is an IPv4 or IPv6 address, which TLS does not send as the server name.
    private static func isIPAddress(_ host: String) -> Bool {
        host.contains(":") || (!host.isEmpty && host.utf8.allSatisfy { $0 == UInt8(ascii: ".") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
    }
}
