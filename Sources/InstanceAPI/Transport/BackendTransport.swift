import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// HTTP/1.1 calls to the backend over kept-alive connections, plain or TLS, with one write per
/// call and no per-call machinery beyond the exchange itself.
///
/// A call takes an idle connection to its origin, or connects a new one; the connection returns
/// to the idle set when the answer is complete and the server keeps it open. Calls in flight are
/// bounded by the caller (the pipelines' concurrency); at most `maxIdlePerOrigin` connections
/// stay open between calls, and one idle for `idleTimeout` is closed, not used. Every call has a
/// deadline covering connect, send and answer. TLS verifies the server's certificate against the
/// system's trust roots and its host name. Safe to share.
final class BackendTransport: Sendable {
    private struct State {
        var idle: IdleConnections<BackendConnection>
        var tls: NIOSSLContext?
        var shutDown = false
    }

    private let group: any EventLoopGroup
    private let state: Mutex<State>
    private let connectTimeout: Duration
    private let tlsConfiguration: TLSConfiguration
    /// The largest answer body taken, in bytes.
    let bodyLimit: Int

    /// A transport on `group`'s event loops. `tls` is for tests, which trust their own root.
    init(
        group: any EventLoopGroup, maxIdlePerOrigin: Int, idleTimeout: Duration = .seconds(60), connectTimeout: Duration = .seconds(10),
        bodyLimit: Int = 32 << 20, tls: TLSConfiguration = .makeClientConfiguration()
    ) {
        self.tlsConfiguration = tls
        self.group = group
        self.state = Mutex(State(idle: IdleConnections(limit: maxIdlePerOrigin, idleTimeout: idleTimeout)))
        self.connectTimeout = connectTimeout
        self.bodyLimit = bodyLimit
    }

    /// Sends one call and returns the complete answer. Throws `TransportError` (bad URL, no answer
    /// by `timeout`, connection closed early, answer too large, shut down), or NIO's own error when
    /// connecting or TLS fails. A cancelled call closes its connection.
    func send(_ method: HTTPMethod, _ url: String, headers: HTTPHeaders, body: ByteBuffer?, timeout: Duration) async throws -> TransportAnswer {
        let (origin, target) = try BackendOrigin.split(url)
        let deadline = NIODeadline.now() + TimeAmount(timeout)
        var idle: BackendConnection?
        repeat {
            let taken = try state.withLock { state throws(TransportError) in
                guard !state.shutDown else { throw TransportError.shutDown }
                return state.idle.take(origin, now: .now)
            }
            for connection in taken.close { connection.close() }
            idle = taken.connection
            // One the server closed just as it went idle may not have left the set yet.
        } while idle.map({ !$0.isActive }) == true
        let connection: BackendConnection
        if let idle { connection = idle } else { connection = try await connect(origin, deadline: deadline) }
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: target, headers: headers)
        head.headers.replaceOrAdd(name: "Host", value: origin.hostHeader)
        if let body {
            head.headers.replaceOrAdd(name: "Content-Length", value: String(body.readableBytes))
        } else if method == .POST || method == .PUT || method == .PATCH {
            head.headers.replaceOrAdd(name: "Content-Length", value: "0")
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

    /// Closes the idle connections and refuses new calls; calls in flight finish and close theirs.
    func shutdown() {
        let idle = state.withLock { state in
            state.shutDown = true
            return state.idle.removeAll()
        }
        for connection in idle { connection.close() }
    }

    private func connect(_ origin: BackendOrigin, deadline: NIODeadline) async throws -> BackendConnection {
        let tls = try origin.tls ? tlsContext() : nil
        let remaining = deadline - .now()
        guard remaining > .zero else { throw TransportError.timedOut }
        let bodyLimit = self.bodyLimit
        let serverName = Self.isIPAddress(origin.host) ? nil : origin.host
        let channel = try await ClientBootstrap(group: group)
            .connectTimeout(min(TimeAmount(connectTimeout), remaining))
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverName)) }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(HTTPExchangeHandler(bodyLimit: bodyLimit))
                }
            }
            .connect(host: origin.host, port: origin.port).get()
        let connection = try await channel.eventLoop.submit {
            BackendConnection(origin: origin, channel: channel, handler: try channel.pipeline.syncOperations.handler(type: HTTPExchangeHandler.self))
        }.get()
        // A connection the server closes while idle leaves the idle set.
        connection.closeFuture.whenComplete { [weak self] _ in
            self?.state.withLock { $0.idle.remove(connection, origin) }
        }
        return connection
    }

    /// The TLS context, made on first use: the system's trust roots (unless a test gave its own),
    /// full verification, HTTP/1.1.
    private func tlsContext() throws -> NIOSSLContext {
        try state.withLock { state in
            if let context = state.tls { return context }
            var configuration = tlsConfiguration
            configuration.applicationProtocols = ["http/1.1"]
            let context = try NIOSSLContext(configuration: configuration)
            state.tls = context
            return context
        }
    }

    /// Whether `host` is an IPv4 or IPv6 address, which TLS does not send as the server name.
    private static func isIPAddress(_ host: String) -> Bool {
        host.contains(":") || (!host.isEmpty && host.utf8.allSatisfy { $0 == UInt8(ascii: ".") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
    }
}
