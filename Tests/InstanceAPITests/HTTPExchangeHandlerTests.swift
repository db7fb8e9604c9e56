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

    @Test("a body part that would pass the transport's answer budget fails the call and closes the connection; its bytes come back")
    func answerBudget() throws {
        let budget = AnswerBudget(limit: 10)
        #expect(budget.take(6), "the budget takes 6 of 10")
        let channel = EmbeddedChannel()
        let handler = HTTPExchangeHandler(budget: budget)
        try channel.pipeline.syncOperations.addHandler(handler)
        let promise = channel.embeddedEventLoop.makePromise(of: TransportAnswer.self)
        nonisolated(unsafe) var failure: (any Error)?
        promise.futureResult.whenFailure { failure = $0 }
        handler.expect(promise, limit: 1 << 20)
        try channel.writeInbound(HTTPClientResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok)))
        try channel.writeInbound(HTTPClientResponsePart.body(ByteBuffer(string: "123")))
        #expect(budget.bytesHeld == 9)
        try channel.writeInbound(HTTPClientResponsePart.body(ByteBuffer(string: "45")))
        #expect(failure as? TransportError == .answerBudgetExhausted(limit: 10))
        #expect(budget.bytesHeld == 6 && !channel.isActive, "its 3 bytes back, the connection closed")
    }
}
