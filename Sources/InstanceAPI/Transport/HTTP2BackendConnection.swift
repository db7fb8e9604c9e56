import NIOCore
import NIOHTTP1
import NIOHTTP2
import Synchronization

/// One HTTP/2 connection to a backend origin, carrying many calls at once, each on a stream of
/// its own. A call's stream ends with its answer; a call that fails, times out or is cancelled
/// resets its stream only, never the connection.
final class HTTP2BackendConnection: Sendable {
    /// The origin it is connected to.
    let origin: BackendOrigin
    private let channel: any Channel
    private let multiplexer: HTTP2StreamMultiplexer.SendableView
    private let bodyLimit: Int
    /// The last stream the server said it processes, from its latest GOAWAY (`Int.max` before).
    private let goAwayLastStreamID = Atomic(Int.max)

    /// Wraps `channel`, whose pipeline ends with `multiplexer`.
    init(origin: BackendOrigin, channel: any Channel, multiplexer: HTTP2StreamMultiplexer.SendableView, bodyLimit: Int) {
        self.origin = origin
        self.channel = channel
        self.multiplexer = multiplexer
        self.bodyLimit = bodyLimit
    }

    /// Whether the connection is open.
    var isActive: Bool { channel.isActive }

    /// Completes when the connection is closed, by either side.
    var closeFuture: EventLoopFuture<Void> { channel.closeFuture }

    /// Opens a stream, writes `head` and `body` on it and completes with the answer; or fails
    /// with `.timedOut` at `deadline`, with `.refusedStream` when the server refused the stream
    /// unprocessed (GOAWAY below it, REFUSED_STREAM), or with why the stream failed. `call`
    /// cancels it.
    func exchange(_ head: HTTPRequestHead, body: ByteBuffer?, deadline: NIODeadline, call: StreamCall) -> EventLoopFuture<TransportAnswer> {
        let loop = channel.eventLoop
        let promise = loop.makePromise(of: TransportAnswer.self)
        let opened = loop.makePromise(of: (any Channel).self)
        let bodyLimit = self.bodyLimit
        multiplexer.createStreamChannel(promise: opened) { stream in
            stream.eventLoop.makeCompletedFuture {
                let handler = HTTPExchangeHandler(bodyLimit: bodyLimit)
                try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTP1ClientCodec(httpProtocol: .https))
                try stream.pipeline.syncOperations.addHandler(handler)
                handler.expect(promise)
                let timer = stream.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { handler.fail(TransportError.timedOut) }
                promise.futureResult.assumeIsolated().whenComplete { _ in timer.cancel() }
                stream.write(HTTPClientRequestPart.head(head), promise: nil)
                if let body { stream.write(HTTPClientRequestPart.body(.byteBuffer(body)), promise: nil) }
                stream.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
            }
        }
        opened.futureResult.whenComplete { result in
            switch result {
            case .success(let stream):
                if !call.opened(stream) { stream.close(promise: nil) }
                // A stream ends with its answer (both sides' END_STREAM); one ended otherwise
                // (deadline, cancel, broken answer) is reset. Closing a complete one would reset it
                // too, before HTTP/2 has marked it closed: a server counts those resets as an
                // attack (Hummingbird's NIOHTTP2 answers 200 of them with GOAWAY
                // ENHANCE_YOUR_CALM, as the harness of issue 33 found).
                promise.futureResult.whenFailure { _ in stream.close(promise: nil) }
            case .failure(let error):
                promise.fail(error)
            }
        }
        return promise.futureResult
    }

    /// The server sent GOAWAY: streams above `lastStreamID` it did not process.
    func wentAway(lastStreamID: HTTP2StreamID) {
        goAwayLastStreamID.store(Int(lastStreamID), ordering: .relaxed)
    }

    /// Whether `error`, which failed a call on this connection, says the server did not process
    /// the call: its stream was refused (REFUSED_STREAM), or closed by the connection because it
    /// was above a GOAWAY's last stream. Such a call is safe to send again.
    func refusedUnprocessed(_ error: any Error) -> Bool {
        if error as? TransportError == .refusedStream { return true }
        guard let closed = error as? NIOHTTP2Errors.StreamClosed else { return false }
        return closed.errorCode == .refusedStream || Int(closed.streamID) > goAwayLastStreamID.load(ordering: .relaxed)
    }

    /// Closes the connection; its calls fail.
    func close() {
        channel.close(promise: nil)
    }
}
