import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// A small HTTP/1.1 server on loopback, plain or TLS, whose paths misbehave on purpose, for the
/// transport's tests: `/echo` answers the request body (or `ok`), `/close` answers and closes,
/// `/silent` never answers, `/big` answers 3,000 bytes, `/cut` closes halfway through an answer, `/stall` (and any path under it) sends a head and a few bytes
/// of its body and then nothing;
/// the metadata server's token path answers a token, but 404 to a `scopes` query; `/token-once`
/// answers a token the first time it is asked on this server, and 503 after; `/not-ready-STATUS`
/// (and any path under it) answers STATUS the first two times it is asked on this server, then
/// 200 with the project id `p-ready`, as a metadata server in its first seconds; `/reset-ms-N`
/// (and any path under it) closes the connection without an answer until N ms after it was first
/// asked on this server, then answers `p-ready`.
final class TestHTTPServer: Sendable {
    /// A certificate for `localhost` and 127.0.0.1, self-signed, and its key: a test fixture that
    /// guards nothing.
    static let certificatePEM = """
        -----BEGIN CERTIFICATE-----
        MIIBmjCCAUGgAwIBAgIUdWw+5GWRPgjko14y4xs3jBG2Z9wwCgYIKoZIzj0EAwIw
        FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyNDExMzgyOFoYDzIxMjYxMDMx
        MTEzODI4WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
        PQMBBwNCAAR39beS00tQ6QSa/H8io3q9nffFB3IU9HUL5LO3lwkGzbhWH7S+emOg
        tppPgyXGEgaVmrag4Pz8rU4mFEBdeKmgo28wbTAdBgNVHQ4EFgQUgW3CeAsjrhdV
        Tu1fPC6nZqyoXg4wHwYDVR0jBBgwFoAUgW3CeAsjrhdVTu1fPC6nZqyoXg4wDwYD
        VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARgglsb2NhbGhvc3SHBH8AAAEwCgYIKoZI
        zj0EAwIDRwAwRAIgdeobkv+RnpIf1g1mzcXWyiwL/gNtJ3EanvfztQBWw8kCIDTO
        uwo5a9A+uDNGaAHU2xRDipl75+FDmIOn99X5+vez
        -----END CERTIFICATE-----
        """
    static let keyPEM = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgsUVmk5Gs/B3lEe7L
        SQNaeksnrhwrq3ytVsf2ax9j03+hRANCAAR39beS00tQ6QSa/H8io3q9nffFB3IU
        9HUL5LO3lwkGzbhWH7S+emOgtppPgyXGEgaVmrag4Pz8rU4mFEBdeKmg
        -----END PRIVATE KEY-----
        """

    private let channel: any Channel
    private let accepted = Tally()
    /// Times `/token-once` was asked.
    private let tokensAsked = Tally()
    /// Times a `/not-ready-STATUS` path was asked.
    private let notReadyAsked = Tally()
    /// When a `/reset-ms-N` path was first asked (nanoseconds of the process's uptime; 0: never).
    private let firstResetAsk = Tally()
    /// The port it listens on.
    let port: Int

    /// `path` on this server, over plain HTTP.
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Connections accepted so far.
    var connections: Int { accepted.count.load(ordering: .relaxed) }

    /// Starts listening on 127.0.0.1, over TLS when `tls`.
    init(group: any EventLoopGroup, tls: Bool = false) async throws {
        let context: NIOSSLContext? =
            tls
            ? try NIOSSLContext(
                configuration: .makeServerConfiguration(
                    certificateChain: [.certificate(try NIOSSLCertificate(bytes: Array(Self.certificatePEM.utf8), format: .pem))],
                    privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(Self.keyPEM.utf8), format: .pem)))) : nil
        let counter = accepted
        let tokensAsked = tokensAsked
        let notReadyAsked = notReadyAsked
        let firstResetAsk = firstResetAsk
        channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                counter.count.add(1, ordering: .relaxed)
                return channel.eventLoop.makeCompletedFuture {
                    if let context { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context)) }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(
                        Responder(tokensAsked: tokensAsked, notReadyAsked: notReadyAsked, firstResetAsk: firstResetAsk))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = channel.localAddress?.port ?? 0
    }

    /// Stops listening.
    func stop() async throws {
        try await channel.close()
    }

    private final class Tally: Sendable {
        let count = Atomic<Int>(0)
    }

    private final class Responder: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        private var uri = ""
        private var body: ByteBuffer?
        private let tokensAsked: Tally
        private let notReadyAsked: Tally
        private let firstResetAsk: Tally

        init(tokensAsked: Tally, notReadyAsked: Tally, firstResetAsk: Tally) {
            self.tokensAsked = tokensAsked
            self.notReadyAsked = notReadyAsked
            self.firstResetAsk = firstResetAsk
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                uri = head.uri
                body = nil
            case .body(var part):
                if body == nil { body = part } else { body!.writeBuffer(&part) }
            case .end:
                answer(context: context)
            }
        }

        private func answer(context: ChannelHandlerContext) {
            switch uri {
            case "/silent":
                return
            case "/close":
                respond(context, ByteBuffer(string: "bye"), headers: [("Connection", "close")], close: true)
            case "/unavailable":
                // A kept-alive 503, as a proxy answers before the upstream has.
                respond(context, ByteBuffer(string: "upstream busy"), status: .serviceUnavailable)
            case "/big":
                respond(context, ByteBuffer(repeating: UInt8(ascii: "x"), count: 3_000))
            case let uri where uri.hasPrefix("/stall"):
                // The head and the start of a body, then nothing more: a server that stalls mid-answer.
                let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: ["Content-Length": "200"])
                context.write(wrapOutboundOut(.head(head)), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: #"{"acc"#)))), promise: nil)
            case "/cut":
                let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: ["Content-Length": "100"])
                context.write(wrapOutboundOut(.head(head)), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: "only part")))), promise: nil)
                context.close(promise: nil)
            case "/token-once":
                guard tokensAsked.count.wrappingAdd(1, ordering: .relaxed).oldValue == 0 else {
                    return respond(context, ByteBuffer(string: "token service down"), status: .serviceUnavailable)
                }
                respond(context, ByteBuffer(string: #"{"access_token":"t-1","expires_in":3599,"token_type":"Bearer"}"#))
            case let uri where uri.hasPrefix("/not-ready-"):
                let status = Int(uri.dropFirst("/not-ready-".count).prefix { $0.isNumber }) ?? 503
                guard notReadyAsked.count.wrappingAdd(1, ordering: .relaxed).oldValue >= 2 else {
                    return respond(context, ByteBuffer(string: "not ready"), status: HTTPResponseStatus(statusCode: status))
                }
                respond(context, ByteBuffer(string: "p-ready"))
            case let uri where uri.hasPrefix("/reset-ms-"):
                let window = Int(uri.dropFirst("/reset-ms-".count).prefix { $0.isNumber }) ?? 1_000
                let now = Int(NIODeadline.now().uptimeNanoseconds)
                let first = firstResetAsk.count.compareExchange(expected: 0, desired: now, ordering: .relaxed).original
                guard first != 0, now - first >= window * 1_000_000 else { return context.close(promise: nil) }
                respond(context, ByteBuffer(string: "p-ready"))
            case "/redirect":
                // A token endpoint that sends the caller elsewhere (to a path that would answer a token).
                respond(
                    context, ByteBuffer(), status: .temporaryRedirect,
                    headers: [("Location", "/computeMetadata/v1/instance/service-accounts/default/token")])
            case let uri where uri.hasPrefix("/computeMetadata/v1/instance/service-accounts/default/token"):
                // A metadata server that does not know the scopes query (as some GKE ones did).
                guard !uri.contains("?scopes=") else { return respond(context, ByteBuffer(string: "not defined"), status: .notFound) }
                respond(context, ByteBuffer(string: #"{"access_token":"t-1","expires_in":3599,"token_type":"Bearer"}"#))
            default:
                respond(context, body ?? ByteBuffer(string: "ok"))
            }
        }

        private func respond(
            _ context: ChannelHandlerContext, _ body: ByteBuffer, status: HTTPResponseStatus = .ok, headers extra: [(String, String)] = [], close: Bool = false
        ) {
            var headers = HTTPHeaders(extra)
            headers.add(name: "Content-Length", value: String(body.readableBytes))
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
            if close { written.assumeIsolated().whenComplete { _ in context.close(promise: nil) } }
        }
    }
}
