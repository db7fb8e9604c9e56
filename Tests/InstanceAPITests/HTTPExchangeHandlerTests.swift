import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import InstanceAPI

@Suite("HTTP/1.1 exchange handler: which answers leave a connection fit to keep")
struct HTTPExchangeHandlerTests {
    /// The answer `parts` make of one call on a fresh connection.
    private func answer(_ parts: [HTTPClientResponsePart]) throws -> TransportAnswer? {
        let channel = EmbeddedChannel()
        let handler = HTTPExchangeHandler()
        try channel.pipeline.syncOperations.addHandler(handler)
        let promise = channel.embeddedEventLoop.makePromise(of: TransportAnswer.self)
        nonisolated(unsafe) var result: TransportAnswer?
        promise.futureResult.whenSuccess { result = $0 }
        handler.expect(promise, limit: 1 << 20)
        for part in parts { try channel.writeInbound(part) }
        channel.embeddedEventLoop.run()
        return result
    }

    @Test("a 101 switched the connection to another protocol: its answer is not kept alive; a 200 on HTTP/1.1 is")
    func switchingProtocolsIsNotKept() throws {
        var upgrade = HTTPResponseHead(version: .http1_1, status: .switchingProtocols)
        upgrade.headers.add(name: "Upgrade", value: "x")
        upgrade.headers.add(name: "Connection", value: "upgrade")
        let switched = try #require(try answer([.head(upgrade), .end(nil)]))
        #expect(switched.status == 101 && !switched.keepAlive)
        let ok = try #require(try answer([.head(HTTPResponseHead(version: .http1_1, status: .ok)), .end(nil)]))
        #expect(ok.status == 200 && ok.keepAlive)
    }
}
