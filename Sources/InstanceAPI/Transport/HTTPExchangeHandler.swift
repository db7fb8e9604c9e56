import NIOCore
import NIOHTTP1

/// The last handler of a backend HTTP/1.1 connection: it reads the answer to the one call the
/// connection carries at a time and completes that call's promise with it, or with why there is
/// none. (HTTP/2 connections carry their calls in `HTTP2CallHandler`.)
///
/// A connection that failed, timed out, was closed, or sent what no call asked for is closed and
/// fails its call; a connection with a call outstanding is never handed to another. Runs on the
/// connection's event loop only.
final class HTTPExchangeHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    /// The call outstanding: its promise, and the largest answer body it takes, in bytes.
    private struct Outstanding {
        var promise: EventLoopPromise<TransportAnswer>
        var limit: Int
    }

    private enum State {
        case idle
        case awaitingHead(Outstanding)
        case readingBody(Outstanding, HTTPResponseHead, ByteBuffer)
        case closed
    }

    private var state = State.idle
    private var context: ChannelHandlerContext?
    private let budget: AnswerBudget

    /// A handler holding answer bodies within `budget`, shared with the transport's other
    /// connections.
    init(budget: AnswerBudget = AnswerBudget()) {
        self.budget = budget
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }
    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    /// Takes the promise of the call just written: it completes with the next answer read, or
    /// fails with `.answerTooLarge` once its body passes `limit` bytes.
    func expect(_ promise: EventLoopPromise<TransportAnswer>, limit: Int) {
        switch state {
        case .idle: state = .awaitingHead(Outstanding(promise: promise, limit: limit))
        case .closed: promise.fail(TransportError.closedBeforeAnswer)
        case .awaitingHead, .readingBody:
            // One call at a time per connection: a second is a bug of the pool, and the answer
            // could go to either call, so both fail and the connection goes.
            promise.fail(TransportError.closedBeforeAnswer)
            fail(TransportError.closedBeforeAnswer)
        }
    }

    /// Fails the outstanding call, if any, with `error` and closes the connection.
    func fail(_ error: any Error) {
        let promise: EventLoopPromise<TransportAnswer>?
        switch state {
        case .awaitingHead(let waiting): promise = waiting.promise
        case .readingBody(let waiting, _, let body):
            promise = waiting.promise
            budget.giveBack(body.readableBytes)
        case .idle, .closed: promise = nil
        }
        state = .closed
        promise?.fail(error)
        context?.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch (unwrapInboundIn(data), state) {
        case (.head(let head), .awaitingHead(let call)):
            state = .readingBody(call, head, context.channel.allocator.buffer(capacity: 0))
        case (.body(var part), .readingBody(let call, let head, var body)):
            guard body.readableBytes + part.readableBytes <= call.limit else {
                fail(TransportError.answerTooLarge(limit: call.limit))
                return
            }
            guard budget.take(part.readableBytes) else {
                fail(TransportError.answerBudgetExhausted(limit: budget.limit))
                return
            }
            state = .idle  // the buffer is written in place, not copied
            if body.readableBytes == 0 { body = part } else { body.writeBuffer(&part) }
            state = .readingBody(call, head, body)
        case (.end, .readingBody(let call, let head, let body)):
            state = .idle
            budget.giveBack(body.readableBytes)
            // A 101 (the only informational answer NIO passes on) switched the connection to
            // another protocol: the parser reads nothing more of it, so it is never kept.
            let keepAlive = head.isKeepAlive && head.status.code >= 200
            call.promise.succeed(TransportAnswer(status: Int(head.status.code), headers: head.headers, body: body, keepAlive: keepAlive))
        case (_, .closed):
            break
        default:
            // An answer no call is waiting for: the stream cannot be trusted any more.
            fail(TransportError.closedBeforeAnswer)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // The parser's word for a connection closed inside an answer.
        if error as? HTTPParserError == .invalidEOFState {
            fail(TransportError.closedBeforeAnswer)
        } else {
            fail(error)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(TransportError.closedBeforeAnswer)
        context.fireChannelInactive()
    }
}
