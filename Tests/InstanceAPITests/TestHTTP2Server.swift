import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import Synchronization
import TestSupport

/// A small HTTP/2 server over TLS on loopback (ALPN `h2` only), for the transport's HTTP/2
/// tests: `/echo` answers `ok` at once; `/hold` is answered only when a test says
/// (`answerHeld`); `/refuse` is reset with REFUSED_STREAM (not processed). Tests wait for held requests to arrive (`held(_:)`), send GOAWAY
/// (`goAway(lastStreamID:)`) or close every connection mid-answer (`closeConnections`).
final class TestHTTP2Server: Sendable {
    /// A request held for an answer.
    struct Held: Sendable {
        /// The connection it came on, counted from 1 in order of acceptance.
        var connection: Int
        /// Its HTTP/2 stream.
        var streamID: Int
        /// Answers it `ok`.
        let answer: @Sendable () -> Void
    }

    private struct State {
        var connections: [any Channel] = []
        var requests = 0
        var held: [Held] = []
        /// SETTINGS acknowledgements received, per connection counted from 1.
        var settingsAcks: [Int: Int] = [:]
        var waiters: [(id: Int, ready: @Sendable (State) -> Bool, continuation: CheckedContinuation<[Held], any Error>)] = []
        var nextWaiter = 0

        /// Takes the waiters whose condition now holds, with what to resume them with.
        mutating func readyWaiters() -> (continuations: [CheckedContinuation<[Held], any Error>], held: [Held]) {
            let snapshot = self
            let ready = waiters.filter { $0.ready(snapshot) }.map(\.continuation)
            waiters.removeAll { $0.ready(snapshot) }
            return (ready, held)
        }
    }

    /// The state, shared with the connections' handlers.
    private final class Shared: Sendable {
        let state = Mutex(State())
    }

    private let channel: any Channel
    private let shared: Shared
    /// The port it listens on.
    let port: Int

    /// `path` on this server.
    func url(_ path: String) -> String { "https://localhost:\(port)\(path)" }

    /// Connections accepted so far.
    var connections: Int { shared.state.withLock { $0.connections.count } }

    /// Requests received so far, answered or not.
    var requests: Int { shared.state.withLock { $0.requests } }

    /// Starts listening on 127.0.0.1 with `TestHTTPServer`'s certificate. With `laterSettings`,
    /// each connection sends a second SETTINGS once the client's preface has come.
    /// With `goingAway`, each connection sends GOAWAY (last stream 0) as soon as the client's
    /// preface has come: a server draining before it took any stream.
    init(group: any EventLoopGroup, laterSettings: HTTP2Settings? = nil, goingAway: Bool = false) async throws {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: Array(TestHTTPServer.certificatePEM.utf8), format: .pem))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(TestHTTPServer.keyPEM.utf8), format: .pem)))
        configuration.applicationProtocols = ["h2"]
        let context = try NIOSSLContext(configuration: configuration)
        let shared = Shared()
        self.shared = shared
        channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                let number = shared.state.withLock { state in
                    state.connections.append(channel)
                    return state.connections.count
                }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                }.flatMap {
                    channel.configureHTTP2Pipeline(mode: .server, initialLocalSettings: [HTTP2Setting(parameter: .maxConcurrentStreams, value: 100)]) {
                        stream in
                        stream.eventLoop.makeCompletedFuture {
                            try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
                            try stream.pipeline.syncOperations.addHandler(Responder(connection: number, shared: shared))
                        }
                    }.flatMapThrowing { _ in
                        try channel.pipeline.syncOperations.addHandler(
                            ConnectionFrames(connection: number, shared: shared, laterSettings: laterSettings, goingAway: goingAway))
                    }
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = channel.localAddress?.port ?? 0
    }

    /// Waits until `count` requests have been held since the start, and returns them; throws
    /// after `seconds` (a hang guard: a call that never came would hold the whole test run).
    func held(_ count: Int, seconds: Double = 120) async throws -> [Held] {
        try await wait("\(count) requests held", seconds: seconds) { $0.held.count >= count }
    }

    /// Waits until the client acknowledged `count` SETTINGS on connection `connection` (counted
    /// from 1): it has read and applied every SETTINGS the server sent before them.
    func settingsAcknowledged(connection: Int, count: Int, seconds: Double = 120) async throws {
        _ = try await wait("\(count) SETTINGS acknowledged on connection \(connection)", seconds: seconds) {
            $0.settingsAcks[connection, default: 0] >= count
        }
    }

    /// Waits until `ready` holds of the state, and returns the requests held; throws after
    /// `seconds`, naming `what`.
    private func wait(_ what: String, seconds: Double, until ready: @escaping @Sendable (State) -> Bool) async throws -> [Held] {
        let shared = self.shared
        let id = shared.state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        let guardTask = Task {
            try await Task.sleep(for: .seconds(seconds))
            let waiter = shared.state.withLock { state in
                defer { state.waiters.removeAll { $0.id == id } }
                return state.waiters.first { $0.id == id }
            }
            waiter?.continuation.resume(throwing: FixtureFailure("\(what) within \(seconds) s"))
        }
        defer { guardTask.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            let held = shared.state.withLock { state -> [Held]? in
                if ready(state) { return state.held }
                state.waiters.append((id, ready, continuation))
                return nil
            }
            if let held { continuation.resume(returning: held) }
        }
    }

    /// Answers every request held so far.
    func answerHeld() {
        for held in shared.state.withLock({ $0.held }) { held.answer() }
    }

    /// Sends GOAWAY on connection `connection` (counted from 1): streams above `lastStreamID`
    /// were not processed.
    func goAway(connection: Int, lastStreamID: Int) {
        let channel = shared.state.withLock { $0.connections[connection - 1] }
        let frame = HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: HTTP2StreamID(lastStreamID), errorCode: .noError, opaqueData: nil))
        channel.writeAndFlush(frame, promise: nil)
    }

    /// Closes every connection at once, answers and all.
    func closeConnections() {
        for channel in shared.state.withLock({ $0.connections }) { channel.close(promise: nil) }
    }

    /// Stops listening and closes every connection.
    func stop() async throws {
        closeConnections()
        try await channel.close()
    }

    /// The connection's own frames (the multiplexer passes them on): sends `laterSettings` when
    /// the client's preface SETTINGS comes (the server's own preface SETTINGS has gone out by
    /// then: NIO sends it first, and one written earlier would take its place), and counts the
    /// client's SETTINGS acknowledgements.
    private final class ConnectionFrames: ChannelInboundHandler {
        typealias InboundIn = HTTP2Frame
        typealias OutboundOut = HTTP2Frame

        private let connection: Int
        private let shared: Shared
        private var laterSettings: HTTP2Settings?
        private let goingAway: Bool

        init(connection: Int, shared: Shared, laterSettings: HTTP2Settings?, goingAway: Bool) {
            self.connection = connection
            self.shared = shared
            self.laterSettings = laterSettings
            self.goingAway = goingAway
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data).payload {
            case .settings(.settings):
                if goingAway {
                    let frame = HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: 0, errorCode: .noError, opaqueData: nil))
                    context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
                }
                if let laterSettings {
                    self.laterSettings = nil
                    context.writeAndFlush(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .settings(.settings(laterSettings)))), promise: nil)
                }
            case .settings(.ack):
                let (ready, all) = shared.state.withLock { state in
                    state.settingsAcks[connection, default: 0] += 1
                    return state.readyWaiters()
                }
                for continuation in ready { continuation.resume(returning: all) }
            default:
                break
            }
            context.fireChannelRead(data)
        }
    }

    private final class Responder: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        private let connection: Int
        private let shared: Shared
        private var uri = ""

        init(connection: Int, shared: Shared) {
            self.connection = connection
            self.shared = shared
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                uri = head.uri
            case .body:
                break
            case .end:
                shared.state.withLock { $0.requests += 1 }
                switch uri {
                case "/hold": hold(context)
                case "/refuse": refuse(context)
                default: respond(context)
                }
            }
        }

        private func hold(_ context: ChannelHandlerContext) {
            let channel = context.channel
            let streamID = (try? channel.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID)).map { Int($0) } ?? 0
            let bound = NIOLoopBound((self, context), eventLoop: channel.eventLoop)
            let held = Held(connection: connection, streamID: streamID) {
                channel.eventLoop.execute { bound.value.0.respond(bound.value.1) }
            }
            let (ready, all) = shared.state.withLock { state in
                state.held.append(held)
                return state.readyWaiters()
            }
            for continuation in ready { continuation.resume(returning: all) }
        }

        /// Resets the request's stream with REFUSED_STREAM, written on its connection.
        private func refuse(_ context: ChannelHandlerContext) {
            guard let streamID = try? context.channel.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID), let connection = context.channel.parent
            else { return }
            connection.writeAndFlush(HTTP2Frame(streamID: streamID, payload: .rstStream(.refusedStream)), promise: nil)
        }

        private func respond(_ context: ChannelHandlerContext) {
            guard context.channel.isActive else { return }
            let body = ByteBuffer(string: "ok")
            let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: ["Content-Length": String(body.readableBytes)])
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
