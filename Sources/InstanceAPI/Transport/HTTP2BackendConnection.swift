import NIOCore
import NIOHTTP1
import NIOHTTP2
import Synchronization

/// One HTTP/2 connection to a backend origin, carrying many calls at once, each on a stream of
/// its own, all through the connection's one `HTTP2CallHandler` (no channel per stream). A
/// call's stream ends with its answer; a call that fails, times out or is cancelled resets its
/// stream only, never the connection.
final class HTTP2BackendConnection: Sendable {
    /// The origin it is connected to.
    let origin: BackendOrigin
    private let channel: any Channel
    private let handler: NIOLoopBound<HTTP2CallHandler>
    /// The last stream the server said it processes, from its latest GOAWAY (`Int.max` before).
    private let goAwayLastStreamID = Atomic(Int.max)
    /// The streams the server allows at once, from its latest SETTINGS.
    private let announcedMaxStreams = Atomic(HTTP2ConnectionWatcher.defaultMaxStreams)

    /// Wraps `channel`, whose pipeline ends with `handler`; call on the channel's event loop.
    init(origin: BackendOrigin, channel: any Channel, handler: HTTP2CallHandler) {
        self.origin = origin
        self.channel = channel
        self.handler = NIOLoopBound(handler, eventLoop: channel.eventLoop)
    }

    /// Whether the connection is open.
    var isActive: Bool { channel.isActive }

    /// Completes when the connection is closed, by either side.
    var closeFuture: EventLoopFuture<Void> { channel.closeFuture }

    /// Writes `head` and `body` on a new stream and completes with the answer; or fails with
    /// `.timedOut` at `deadline` (`.notConnected` when its request had not left NIO's frame
    /// handler and no answer had begun: not sent), with `.refusedStream` when the server refused the stream
    /// unprocessed (GOAWAY below it, REFUSED_STREAM) before any answer began (after one: cut
    /// short, `.closedBeforeAnswer`), or with why the stream failed. `call`
    /// cancels it.
    func exchange(_ head: HTTPRequestHead, body: ByteBuffer?, limit: Int, deadline: NIODeadline, call: StreamCall) -> EventLoopFuture<TransportAnswer> {
        let loop = channel.eventLoop
        let promise = loop.makePromise(of: TransportAnswer.self)
        let handler = self.handler
        let start: @Sendable () -> Void = {
            // Cancelled while the start waited for the loop: nothing goes out (a request and its
            // reset in one flush could still take effect, and count as a rapid reset).
            if call.cancelledBeforeOpening {
                promise.fail(CancellationError())
                return
            }
            guard let streamID = handler.value.start(head, body: body, limit: limit, deadline: deadline, promise: promise) else { return }
            let reset: @Sendable () -> Void = {
                let cancel: @Sendable () -> Void = { handler.value.cancel(streamID, CancellationError()) }
                if loop.inEventLoop { cancel() } else { loop.execute(cancel) }
            }
            if !call.opened(reset: reset) { handler.value.cancel(streamID, CancellationError()) }
        }
        if loop.inEventLoop { start() } else { loop.execute(start) }
        return promise.futureResult
    }

    /// The streams the server allows at once, as its latest SETTINGS said: read when the
    /// connection is registered, so that SETTINGS that came before (several in one read) count.
    var maxStreams: Int { announcedMaxStreams.load(ordering: .sequentiallyConsistent) }

    /// The server's SETTINGS allow `maxStreams` streams at once.
    func announced(maxStreams: Int) {
        announcedMaxStreams.store(maxStreams, ordering: .sequentiallyConsistent)
    }

    /// The server sent GOAWAY: streams above `lastStreamID` it did not process.
    func wentAway(lastStreamID: HTTP2StreamID) {
        goAwayLastStreamID.store(Int(lastStreamID), ordering: .relaxed)
    }

    /// Whether `error`, which failed a call on this connection, says the server did not process
    /// the call: its stream was refused (REFUSED_STREAM), or closed by the connection because it
    /// was above a GOAWAY's last stream. Such a call is safe to send again.
    func refusedUnprocessed(_ error: any Error) -> Bool {
        if error as? TransportError == .refusedStream || error as? TransportError == .noNewStreams { return true }
        guard let closed = error as? NIOHTTP2Errors.StreamClosed else { return false }
        return closed.errorCode == .refusedStream || Int(closed.streamID) > goAwayLastStreamID.load(ordering: .relaxed)
    }

    /// Closes the connection; its calls fail.
    func close() {
        channel.close(promise: nil)
    }
}
