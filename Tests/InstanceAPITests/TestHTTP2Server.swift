import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import Synchronization
import TestSupport

/// A small HTTP/2 server over TLS on loopback (ALPN `h2` only), for the transport's HTTP/2
/// tests: `/echo` answers `ok` at once; `/hold` is answered only when a test says
/// (`answerHeld`). Tests wait for held requests to arrive (`held(_:)`), send GOAWAY
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
        var waiters: [(id: Int, count: Int, continuation: CheckedContinuation<[Held], any Error>)] = []
        var nextWaiter = 0
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
    /// each connection sends a second SETTINGS right after its first, in the same flush.
    init(group: any EventLoopGroup, laterSettings: HTTP2Settings? = nil) async throws {
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
                    }.map { _ in
                        // Right after the preface's SETTINGS, before the client's first call.
                        if let laterSettings {
                            channel.eventLoop.execute {
                                channel.writeAndFlush(HTTP2Frame(streamID: .rootStream, payload: .settings(.settings(laterSettings))), promise: nil)
                            }
                        }
                    }
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = channel.localAddress?.port ?? 0
    }

    /// Waits until `count` requests have been held since the start, and returns them; throws
    /// after `seconds` (a hang guard: a call that never came would hold the whole test run).
    func held(_ count: Int, seconds: Double = 120) async throws -> [Held] {
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
            waiter?.continuation.resume(throwing: FixtureFailure("\(count) requests held within \(seconds) s"))
        }
        defer { guardTask.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            let ready = shared.state.withLock { state -> [Held]? in
                if state.held.count >= count { return state.held }
                state.waiters.append((id, count, continuation))
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
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
                if uri == "/hold" { hold(context) } else { respond(context) }
            }
        }

        private func hold(_ context: ChannelHandlerContext) {
            let channel = context.channel
            let streamID = (try? channel.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID)).map { Int($0) } ?? 0
            let bound = NIOLoopBound((self, context), eventLoop: channel.eventLoop)
            let held = Held(connection: connection, streamID: streamID) {
                channel.eventLoop.execute { bound.value.0.respond(bound.value.1) }
            }
            let ready = shared.state.withLock { state -> [CheckedContinuation<[Held], any Error>] in
                state.held.append(held)
                let count = state.held.count
                let ready = state.waiters.filter { $0.count <= count }.map(\.continuation)
                state.waiters.removeAll { $0.count <= count }
                return ready.isEmpty ? [] : ready
            }
            let all = shared.state.withLock { $0.held }
            for continuation in ready { continuation.resume(returning: all) }
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
