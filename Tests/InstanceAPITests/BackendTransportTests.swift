import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Testing

@testable import InstanceAPI

@Suite("The backend transport: kept-alive HTTP/1.1 over TCP and TLS, against a real server on loopback")
struct BackendTransportTests {
    /// Event loops of this suite's own, for its servers and transports: on the process's
    /// singleton, shared with every other suite running at once, a busy clean-clone run left
    /// calls here without an answer for their 30 s deadline.
    private static let loops = MultiThreadedEventLoopGroup(numberOfThreads: 2)
    private let group = Self.loops

    private func text(_ answer: TransportAnswer) -> String { String(buffer: answer.body) }

    /// A GET of `url` without a body.
    /// A GET whose deadline guards against a hang only: the suite may wait its turn on a loaded runner.
    private func get(
        _ transport: BackendTransport, _ url: String, answerLimit: Int = 1 << 20, timeout: Duration = .seconds(120)
    ) async throws -> TransportAnswer {
        try await transport.send(.GET, url, headers: [:], body: nil, answerLimit: answerLimit, timeout: timeout)
    }

    @Test("calls one after another share one kept-alive connection, and each body goes out and comes back whole")
    func keepAlive() async throws {
        let server = try await TestHTTPServer(group: group)
        let transport = BackendTransport(group: group, maxIdlePerOrigin: 4)
        for n in 0..<5 {
            let body = ByteBuffer(string: String(repeating: "item-\(n),", count: 5_000))
            let answer = try await transport.send(
                .POST, server.url("/echo?n=\(n)"), headers: [:], body: body, answerLimit: 1 << 20, timeout: .seconds(120))
            #expect(answer.status == 200 && answer.body == body && answer.keepAlive)
        }
        #expect(server.connections == 1)
        transport.shutdown()
        try await server.stop()
    }

    @Test("a call whose gate is closed is not sent over HTTP/1.1, and the connection it took serves the next call")
    func withdrawnOverHTTP1() async throws {
        let server = try await TestHTTPServer(group: group)
        let transport = BackendTransport(group: group, maxIdlePerOrigin: 4)
        let gate = SendGate()
        gate.close()
        let error = await #expect(throws: TransportError.self) {
            try await SendGate.$current.withValue(gate) { try await get(transport, server.url("/close")) }
        }
        #expect(error == .withdrawn)
        // `/close` would have closed the connection: it was not asked, and the connection is kept.
        #expect(text(try await get(transport, server.url("/echo"))) == "ok")
        #expect(server.connections == 1)
        transport.shutdown()
        try await server.stop()
    }

    @Test(
        "after a 5xx the HTTP/1.1 connection is not kept, though the server keeps it: a proxy that answered early may still send the upstream's late answer on it, which the next call would take for its own"
    )
    func noReuseAfterServerError() async throws {
        let server = try await TestHTTPServer(group: group)
        let transport = BackendTransport(group: group, maxIdlePerOrigin: 4)
        let busy = try await get(transport, server.url("/unavailable"))
        #expect(busy.status == 503 && busy.keepAlive)
        let next = try await get(transport, server.url("/echo"))
        #expect(text(next) == "ok" && server.connections == 2)
        transport.shutdown()
        try await server.stop()
    }

    @Test("an answer with Connection: close is returned whole, and the next call connects anew")
    func connectionClose() async throws {
        let server = try await TestHTTPServer(group: group)
        let transport = BackendTransport(group: group, maxIdlePerOrigin: 4)
        let closing = try await get(transport, server.url("/close"))
        #expect(text(closing) == "bye" && !closing.keepAlive)
        let next = try await get(transport, server.url("/echo"))
        #expect(text(next) == "ok" && server.connections == 2)
        transport.shutdown()
        try await server.stop()
    }

    @Test("no answer by the deadline is timedOut; that connection goes, and the next call gets a new one")
    func deadline() async throws {
        let server = try await TestHTTPServer(group: group)
        let transport = BackendTransport(group: group, maxIdlePerOrigin: 4)
        await #expect(throws: TransportError.timedOut) {
            try await get(transport, server.url("/silent"), timeout: .milliseconds(200))
        }
        let next = try await get(transport, server.url("/echo"))
        #expect(text(next) == "ok" && server.connections == 2)
        transport.shutdown()
        try await server.stop()
    }

    @Test("an answer past the body limit fails as answerTooLarge; one cut short fails as closedBeforeAnswer")
    func brokenAnswers() async throws {
        let server = try await TestHTTPServer(group: group)
        let transport = BackendTransport(group: group, maxIdlePerOrigin: 4)
        await #expect(throws: TransportError.answerTooLarge(limit: 1_000)) {
            try await get(transport, server.url("/big"), answerLimit: 1_000)
        }
        await #expect(throws: TransportError.closedBeforeAnswer) {
            try await get(transport, server.url("/cut"))
        }
        let next = try await get(transport, server.url("/echo"))
        #expect(text(next) == "ok")
        transport.shutdown()
        try await server.stop()
    }

    @Test("a cancelled call ends at once, with its connection closed")
    func cancellation() async throws {
        let server = try await TestHTTPServer(group: group)
        let transport = BackendTransport(group: group, maxIdlePerOrigin: 4)
        let call = Task {
            try await get(transport, server.url("/silent"), timeout: .seconds(600))
        }
        // Cancelled before or during the call: either way it ends, and not by its deadline.
        try await Task.sleep(for: .milliseconds(100))
        call.cancel()
        await #expect(throws: (any Error).self) { try await call.value }
        transport.shutdown()
        try await server.stop()
    }

    @Test("TLS: a server whose certificate the client trusts answers, over one connection; one it does not trust is refused")
    func tls() async throws {
        let server = try await TestHTTPServer(group: group, tls: true)
        var trusting = TLSConfiguration.makeClientConfiguration()
        trusting.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(TestHTTPServer.certificatePEM.utf8), format: .pem)])
        let transport = BackendTransport(group: group, maxIdlePerOrigin: 4, tls: trusting)
        for _ in 0..<3 {
            let answer = try await transport.send(
                .POST, "https://localhost:\(server.port)/echo", headers: [:], body: ByteBuffer(string: "secret"), answerLimit: 1 << 20,
                timeout: .seconds(120))
            #expect(text(answer) == "secret")
        }
        #expect(server.connections == 1)
        let stranger = BackendTransport(group: group, maxIdlePerOrigin: 4)
        let refused = await #expect(throws: TransportError.self) {
            try await get(stranger, "https://localhost:\(server.port)/echo")
        }
        #expect(refused.map(Self.isNotConnected) == true, "a failed handshake sent nothing: \(String(describing: refused))")
        transport.shutdown()
        stranger.shutdown()
        try await server.stop()
    }

    @Test("an origin whose server chose HTTP/1.1 is called so for a while, then offered HTTP/2 again: one handshake does not pin it for good")
    func http1NotForGood() async throws {
        let server = try await TestHTTPServer(group: group, tls: true)
        var trusting = TLSConfiguration.makeClientConfiguration()
        trusting.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(TestHTTPServer.certificatePEM.utf8), format: .pem)])
        // With no hold, each call offers HTTP/2 again in a handshake of its own (the server, HTTP/1.1
        // only, refuses it each time); the `tls` test holds the default: one connection for three.
        let transport = BackendTransport(group: group, maxIdlePerOrigin: 4, tls: trusting, http1Hold: .zero)
        for _ in 0..<3 { #expect(text(try await get(transport, "https://localhost:\(server.port)/echo")) == "ok") }
        #expect(server.connections == 3)
        transport.shutdown()
        try await server.stop()
    }

    @Test(
        "no connection, no call: a connection refused over TCP or TLS fails as not sent, and the client reads it as unreachable, never carried out, with no answer status"
    )
    func notConnected() async throws {
        let transport = BackendTransport(group: group, maxIdlePerOrigin: 4)
        // Nothing listens on port 1 of the loopback.
        for url in ["http://127.0.0.1:1/echo", "https://127.0.0.1:1/echo"] {
            let error = await #expect(throws: TransportError.self) { try await get(transport, url) }
            #expect(error.map(Self.isNotConnected) == true, "\(url): \(String(describing: error))")
            let read = HTTPFailure.map(try #require(error), api: .deviceGroup, timeout: .seconds(1))
            guard case .unreachable = read else {
                Issue.record("\(url): read as \(read)")
                continue
            }
            #expect(!read.wasSent && !read.mayHaveBeenCarriedOut && read.isOutage && read.resultCode == .unavailable && read.answerStatus == nil)
        }
        transport.shutdown()
    }

    private static func isNotConnected(_ error: TransportError) -> Bool {
        if case .notConnected = error { true } else { false }
    }

    @Test("after shutdown a call is refused without connecting")
    func shutdown() async throws {
        let transport = BackendTransport(group: group, maxIdlePerOrigin: 4)
        transport.shutdown()
        await #expect(throws: TransportError.shutDown) {
            try await get(transport, "http://127.0.0.1:1/echo")
        }
    }
}
