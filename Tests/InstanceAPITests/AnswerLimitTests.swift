import NIOCore
import NIOPosix
import NIOSSL
import Testing

@testable import InstanceAPI

/// Each call takes answers up to its own limit (`APILimits.answerBytes`: a deletion's answer is
/// `{}`, a topic list a few MiB), not one limit of 32 MiB for every call: with hundreds of calls
/// in flight, a backend or proxy answering each with a page of megabytes would hold gigabytes.
@Suite("The backend transport: a call's own answer limit, over HTTP/1.1 and HTTP/2")
struct AnswerLimitTests {
    private static let loops = MultiThreadedEventLoopGroup(numberOfThreads: 2)
    private let group = Self.loops

    @Test("HTTP/1.1: a call's answer past its own limit fails as answerTooLarge; another call takes the same answer")
    func http1() async throws {
        let server = try await TestHTTPServer(group: group)
        let transport = BackendTransport(group: group, maxIdlePerOrigin: 4)
        await #expect(throws: TransportError.answerTooLarge(limit: 1_000)) {
            try await transport.send(.GET, server.url("/big"), headers: [:], body: nil, answerLimit: 1_000, timeout: .seconds(120))
        }
        let whole = try await transport.send(.GET, server.url("/big"), headers: [:], body: nil, answerLimit: 4_000, timeout: .seconds(120))
        #expect(whole.body.readableBytes == 3_000)
        transport.shutdown()
        try await server.stop()
    }

    @Test("HTTP/2: a stream's answer past its call's limit fails that call alone; the connection carries the next")
    func http2() async throws {
        let server = try await TestHTTP2Server(group: group)
        var trusting = TLSConfiguration.makeClientConfiguration()
        trusting.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(TestHTTPServer.certificatePEM.utf8), format: .pem)])
        let transport = BackendTransport(group: group, maxIdlePerOrigin: 4, tls: trusting)
        await #expect(throws: TransportError.answerTooLarge(limit: 1)) {
            try await transport.send(.GET, server.url("/"), headers: [:], body: nil, answerLimit: 1, timeout: .seconds(120))
        }
        let next = try await transport.send(.GET, server.url("/"), headers: [:], body: nil, answerLimit: 2, timeout: .seconds(120))
        #expect(String(buffer: next.body) == "ok" && server.connections == 1)
        transport.shutdown()
        try await server.stop()
    }

    @Test("every API's answer limit holds its largest real answer and is far below the transport's 32 MiB")
    func limits() {
        for api in BackendAPI.allCases {
            #expect(APILimits.answerBytes(api) >= 64 << 10 && APILimits.answerBytes(api) <= 4 << 20, "\(api.rawValue)")
        }
        // A full page of topic names (900 characters each) fits its list call.
        #expect(APILimits.answerBytes(.fcmListTopics) > APILimits.topicListPage * 920)
        #expect(APILimits.answerBytes(.deleteInstance) < 1 << 20)
    }
}
