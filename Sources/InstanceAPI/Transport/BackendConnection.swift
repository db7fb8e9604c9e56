import NIOCore
import NIOHTTP1

/// One kept-alive HTTP/1.1 connection to a backend origin, carrying one call at a time.
final class BackendConnection: Sendable {
    /// The origin it is connected to.
    let origin: BackendOrigin
    private let channel: any Channel
    private let handler: NIOLoopBound<HTTPExchangeHandler>

    /// Wraps `channel`, whose pipeline ends with `handler`; call on the channel's event loop.
    init(origin: BackendOrigin, channel: any Channel, handler: HTTPExchangeHandler) {
        self.origin = origin
        self.channel = channel
        self.handler = NIOLoopBound(handler, eventLoop: channel.eventLoop)
    }

    /// Whether the connection is open.
    var isActive: Bool { channel.isActive }

    /// Completes when the connection is closed, by either side.
    var closeFuture: EventLoopFuture<Void> { channel.closeFuture }

    /// Writes `head` and `body` in one flush and completes with the answer, or fails with
    /// `.answerTooLarge` past `limit` bytes of body, with `.timedOut` at `deadline` (the
    /// connection is closed then) or with why the connection failed.
    func exchange(_ head: HTTPRequestHead, body: ByteBuffer?, limit: Int, deadline: NIODeadline) -> EventLoopFuture<TransportAnswer> {
        let loop = channel.eventLoop
        let promise = loop.makePromise(of: TransportAnswer.self)
        let channel = self.channel
        let handler = self.handler
        let start: @Sendable () -> Void = {
            handler.value.expect(promise, limit: limit)
            let timer = loop.assumeIsolated().scheduleTask(deadline: deadline) { handler.value.fail(TransportError.timedOut) }
            promise.futureResult.assumeIsolated().whenComplete { _ in timer.cancel() }
            channel.write(HTTPClientRequestPart.head(head), promise: nil)
            if let body { channel.write(HTTPClientRequestPart.body(.byteBuffer(body)), promise: nil) }
            channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        }
        if loop.inEventLoop { start() } else { loop.execute(start) }
        return promise.futureResult
    }

    /// Closes the connection; a call on it fails.
    func close() {
        channel.close(promise: nil)
    }
}
