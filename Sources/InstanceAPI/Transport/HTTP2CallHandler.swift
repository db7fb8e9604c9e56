import NIOCore
import NIOHPACK
import NIOHTTP1
import NIOHTTP2

/// The last handler of an HTTP/2 connection, after NIO's frame handler: it carries every call on
/// the connection itself, without a channel per stream. A call gets the next client stream
/// (odd, increasing), its HEADERS (and DATA) are written, and the answer's HEADERS and DATA are
/// gathered into the call's `TransportAnswer`.
///
/// Writes of calls started in the same event-loop turn go out in one flush (one TLS record, one
/// write). A call fails when the server resets its stream (`.refusedStream` for
/// REFUSED_STREAM, else why), when its stream was above a GOAWAY's last stream
/// (`.refusedStream`: the server did not process it), when its answer passes the call's limit, at its
/// deadline (`.timedOut`, or `.notConnected` when, unanswered, its request had not all left NIO's
/// frame handler, held for the server's stream limit or flow-control window: the handler is that
/// frame handler's `NIOHTTP2FrameDelegate`) or when cancelled; those reset that stream only. The connection lost
/// fails every call (`.closedBeforeAnswer`). After any error NIO's frame handler reports, the
/// connection takes no new streams (`.noNewStreams`: the transport retires it and closes it once
/// its calls have ended): after a connection error NIO sends GOAWAY and reads no more, but leaves
/// the channel open to a server that stays silent, and new calls would all wait for their
/// deadlines there. So does a connection on which a call reached its deadline with no frame read
/// since it started and a PING then got nothing back within `pingTimeout` (silent: a peer gone
/// without a close, a NAT that dropped it, a server that stopped reading), which nothing else
/// would retire; its calls in flight then fail as at their deadlines. A stream answered while its
/// request was still being sent, and left open by the server, is reset: its slot in the
/// server's concurrent streams is given back. It keeps the server's flow-control windows for the
/// connection and each stream open. Runs on the connection's event loop only.
final class HTTP2CallHandler: ChannelInboundHandler, NIOHTTP2FrameDelegate {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    /// The receive window of each stream, announced in the connection's SETTINGS: an answer up
    /// to this size needs no WINDOW_UPDATE.
    static let streamWindow = 1 << 20
    /// The receive window of the connection, kept topped up.
    static let connectionWindow = 1 << 24

    /// One call in flight: its promise, deadline and the answer so far.
    private struct Call {
        var promise: EventLoopPromise<TransportAnswer>
        /// The largest answer body the call takes, in bytes.
        var limit: Int
        var deadline: NIODeadline
        var status: Int?
        var headers = HTTPHeaders()
        var body: ByteBuffer?
        /// NIO's frame handler has passed the request's last frame (its END_STREAM) on to TLS
        /// (`wroteFrame`): until then it holds it, for the server's stream limit or flow-control
        /// window, and the server cannot have the whole request.
        var sent = false
        /// The server began to answer: a HEADERS came for the stream, informational (1xx) or
        /// not. It had the request then, whatever a reset or GOAWAY says after.
        var began = false
        /// `framesRead` when the call started: the same at its deadline, the connection was silent
        /// for the whole call.
        var framesReadAtStart: UInt64
    }

    private let scheme: String
    private let budget: AnswerBudget
    private var context: ChannelHandlerContext?
    private var calls: [HTTP2StreamID: Call] = [:]
    private var nextStreamID = HTTP2StreamID(1)
    /// The last stream the server processes, from its GOAWAY; nil before one.
    private var goAwayLastStreamID: HTTP2StreamID?
    private var closed = false
    /// NIO reported an error that may be the connection's: no new stream starts here.
    private var errorSeen = false
    /// Frames read on the connection so far, any stream's or the connection's own.
    private var framesRead: UInt64 = 0
    /// A call reached its deadline with no frame read on the connection since it started, and a
    /// PING sent then got no frame back within `pingTimeout`: the connection is silent (a peer
    /// gone without a close, a NAT that dropped it, a server that stopped reading), and no new
    /// stream starts here.
    private var silent = false
    /// The PING sent for a silent deadline: when it is due, and `framesRead` when it was sent.
    private var ping: (deadline: NIODeadline, framesRead: UInt64)?
    /// How long a PING sent for a silent deadline waits for any frame.
    static let pingTimeout = TimeAmount.seconds(5)
    private var flushScheduled = false
    /// Streams whose call was answered but which NIO has not closed yet: normally closed by the
    /// end of the read that answered them; any still open then is reset.
    private var answeredOpen: Set<HTTP2StreamID> = []
    /// The deadline the one deadline timer is set for.
    private var timer: (deadline: NIODeadline, task: Scheduled<Void>)?

    /// A handler calling with `scheme` (`https`), holding answer bodies within `budget`;
    /// `firstStreamID` is for tests of a connection whose stream ids run out.
    init(scheme: String = "https", budget: AnswerBudget = AnswerBudget(), firstStreamID: HTTP2StreamID = 1) {
        self.scheme = scheme
        self.budget = budget
        self.nextStreamID = firstStreamID
    }

    /// Why a call whose request had not all left by its deadline failed: it was not sent.
    static let notSent = "the request had not all left before the call's deadline (the server allowed no stream, or no window for its body)"

    /// The settings the client announces: no server push, and each stream's receive window.
    static var initialSettings: HTTP2Settings {
        nioDefaultSettings + [HTTP2Setting(parameter: .enablePush, value: 0), HTTP2Setting(parameter: .initialWindowSize, value: streamWindow)]
    }

    /// Calls in flight.
    var callCount: Int { calls.count }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) {
        failAll(TransportError.closedBeforeAnswer)
        self.context = nil
    }

    /// Starts a call: writes `head` (its `Host` becomes `:authority`) and `body` on a new stream,
    /// flushed with the other calls of this event-loop turn; `promise` completes with the answer
    /// or why there is none. Returns the call's stream, nil when it failed at once (the
    /// connection is closed, going away, or out of stream ids: `.noNewStreams` then, nothing
    /// sent, safe to send again elsewhere).
    @discardableResult
    func start(_ head: HTTPRequestHead, body: ByteBuffer?, limit: Int, deadline: NIODeadline, promise: EventLoopPromise<TransportAnswer>) -> HTTP2StreamID? {
        guard let context, !closed else {
            // Nothing was sent: the call goes on another connection.
            promise.fail(TransportError.noNewStreams)
            return nil
        }
        guard goAwayLastStreamID == nil, !errorSeen, !silent, nextStreamID < HTTP2StreamID.maxID else {
            promise.fail(TransportError.noNewStreams)
            return nil
        }
        let streamID = nextStreamID
        nextStreamID = nextStreamID.advanced(by: 2)
        calls[streamID] = Call(promise: promise, limit: limit, deadline: deadline, framesReadAtStart: framesRead)
        let hasBody = body.map { $0.readableBytes > 0 } ?? false
        let headers = HTTP2Frame.FramePayload.Headers(headers: Self.requestHeaders(head, scheme: scheme), endStream: !hasBody)
        context.write(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .headers(headers))), promise: nil)
        if hasBody, let body {
            context.write(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .data(.init(data: .byteBuffer(body), endStream: true)))), promise: nil)
        }
        scheduleFlush(context)
        armTimer(for: deadline, context)
        return streamID
    }

    /// Fails the call on `streamID` with `error` and resets its stream; nothing when it is over.
    func cancel(_ streamID: HTTP2StreamID, _ error: any Error) {
        guard let call = calls.removeValue(forKey: streamID) else { return }
        budget.giveBack(call.body?.readableBytes ?? 0)
        call.promise.fail(error)
        reset(streamID)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        framesRead &+= 1
        switch frame.payload {
        case .headers(let headers):
            guard var call = calls[frame.streamID] else { return }
            call.began = true
            if call.status == nil {
                guard let status = headers.headers.first(name: ":status").flatMap(TransportAnswer.status(field:)) else {
                    fail(frame.streamID, TransportError.closedBeforeAnswer)
                    return
                }
                // An informational answer (1xx) comes before the real one.
                guard status >= 200 else {
                    calls[frame.streamID] = call
                    return
                }
                call.status = status
                for (name, value, _) in headers.headers where name.first != ":" { call.headers.add(name: name, value: value) }
            }
            if headers.endStream {
                finish(frame.streamID, call)
            } else {
                calls[frame.streamID] = call
            }
        case .data(let data):
            guard var call = calls[frame.streamID] else { return }
            guard call.status != nil, case .byteBuffer(var part) = data.data else {
                fail(frame.streamID, TransportError.closedBeforeAnswer)
                return
            }
            guard (call.body?.readableBytes ?? 0) + part.readableBytes <= call.limit else {
                fail(frame.streamID, TransportError.answerTooLarge(limit: call.limit))
                return
            }
            guard budget.take(part.readableBytes) else {
                fail(frame.streamID, TransportError.answerBudgetExhausted(limit: budget.limit))
                return
            }
            if call.body == nil {
                call.body = part
            } else {
                calls[frame.streamID] = nil  // the buffer is written in place, not copied
                call.body!.writeBuffer(&part)
            }
            if data.endStream {
                finish(frame.streamID, call)
            } else {
                calls[frame.streamID] = call
            }
        case .goAway(let lastStreamID, _, _):
            goAwayLastStreamID = min(lastStreamID, goAwayLastStreamID ?? lastStreamID)
        default:
            break
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let closed as StreamClosedEvent:
            // A complete answer left already; one still here was cut short.
            if !answeredOpen.isEmpty { answeredOpen.remove(closed.streamID) }
            guard let call = calls.removeValue(forKey: closed.streamID) else { break }
            budget.giveBack(call.body?.readableBytes ?? 0)
            if call.began {
                // The server began to answer: it processed the request, whatever its reset or
                // GOAWAY says, and a call read as refused would be sent again unseen.
                call.promise.fail(TransportError.closedBeforeAnswer)
            } else if let lastStreamID = goAwayLastStreamID, closed.streamID > lastStreamID {
                call.promise.fail(TransportError.refusedStream)
            } else if closed.reason == .refusedStream {
                call.promise.fail(TransportError.refusedStream)
            } else if let reason = closed.reason {
                call.promise.fail(NIOHTTP2Errors.streamClosed(streamID: closed.streamID, errorCode: reason))
            } else {
                call.promise.fail(TransportError.closedBeforeAnswer)
            }
        case let window as NIOHTTP2WindowUpdatedEvent:
            topUp(window, context)
        default:
            break
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A stream's own error (as a multiplexer would wrap it) fails its call. Any other may be
        // the connection's: NIO's frame handler has then sent GOAWAY and processes no more
        // frames, but the channel stays open. Without a multiplexer NIO reports a stream's error
        // unwrapped too (its stream is reset and its call fails by the stream's close), and the
        // two cannot be told apart here. So the calls in flight go on (answered, or failed at
        // their deadline), and no new stream starts: the transport retires the connection and
        // closes it once they have ended, which costs at most a new connection.
        if let streamError = error as? NIOHTTP2Errors.StreamError {
            fail(streamError.streamID, streamError.baseError)
        } else {
            errorSeen = true
        }
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        failAll(TransportError.closedBeforeAnswer)
        context.fireChannelInactive()
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if !answeredOpen.isEmpty {
            // Answered before its request was all sent (a server may), and not reset by the
            // server: the stream would count against its concurrent streams for good.
            for streamID in answeredOpen { reset(streamID) }
            answeredOpen = []
        }
        if flushScheduled {
            flushScheduled = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    // MARK: Inside

    /// Completes the call on `streamID` with its answer.
    private func finish(_ streamID: HTTP2StreamID, _ call: Call) {
        calls[streamID] = nil
        answeredOpen.insert(streamID)
        let body = call.body ?? ByteBuffer()
        budget.giveBack(body.readableBytes)
        call.promise.succeed(TransportAnswer(status: call.status ?? 0, headers: call.headers, body: body, keepAlive: true))
    }

    /// Fails the call on `streamID`, whose stream is still open, and resets its stream.
    private func fail(_ streamID: HTTP2StreamID, _ error: any Error) {
        cancel(streamID, error)
    }

    /// Writes RST_STREAM (CANCEL) for `streamID`, flushed with this turn's writes.
    private func reset(_ streamID: HTTP2StreamID) {
        guard let context, !closed else { return }
        context.write(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .rstStream(.cancel))), promise: nil)
        scheduleFlush(context)
    }

    private func failAll(_ error: any Error) {
        closed = true
        timer?.task.cancel()
        timer = nil
        let failed = calls
        calls = [:]
        for call in failed.values {
            budget.giveBack(call.body?.readableBytes ?? 0)
            call.promise.fail(error)
        }
    }

    /// Flushes once at the end of this event-loop turn (or when a read completes first).
    private func scheduleFlush(_ context: ChannelHandlerContext) {
        guard !flushScheduled else { return }
        flushScheduled = true
        context.eventLoop.assumeIsolated().execute { [self] in
            guard flushScheduled, let context = self.context else { return }
            flushScheduled = false
            context.flush()
        }
    }

    /// Keeps one timer, set for the earliest deadline of the calls in flight (or later: it then
    /// fires early, finds none due and is set again).
    private func armTimer(for deadline: NIODeadline, _ context: ChannelHandlerContext) {
        if let timer, timer.deadline <= deadline { return }
        timer?.task.cancel()
        let task = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in deadlinePassed() }
        timer = (deadline, task)
    }

    /// Fails the calls whose deadline passed and sets the timer for the next.
    private func deadlinePassed() {
        timer = nil
        guard let context, !closed else { return }
        let now = context.eventLoop.now
        var next: NIODeadline?
        // Nothing came back for the PING either: every call here waits on a dead connection,
        // and fails now as it would at its deadline.
        var dead = false
        if let ping {
            if framesRead != ping.framesRead {
                self.ping = nil
            } else if ping.deadline <= now {
                silent = true
                dead = true
                self.ping = nil
            } else {
                next = ping.deadline
            }
        }
        var due: [HTTP2StreamID] = []
        for (streamID, call) in calls {
            if dead || call.deadline <= now {
                due.append(streamID)
            } else if next == nil || call.deadline < next! {
                next = call.deadline
            }
        }
        // A request NIO still held, unanswered, fails as not sent: a retry must not read what it
        // finds as the doing of an attempt the server never had (a groups.remove's NOT_FOUND as
        // ALREADY_ABSENT).
        for streamID in due {
            // Silent for the whole call: a PING asks whether the connection is alive (a server
            // slow on one call answers it at once); without an answer the next calls go to
            // another connection, and the transport retires this one.
            if calls[streamID]?.framesReadAtStart == framesRead, ping == nil, !silent {
                let deadline = now + Self.pingTimeout
                ping = (deadline, framesRead)
                if next == nil || deadline < next! { next = deadline }
                context.writeAndFlush(
                    wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .ping(HTTP2PingData(withInteger: 1), ack: false))), promise: nil)
            }
            let unsent = calls[streamID].map { !$0.sent && !$0.began } ?? false
            fail(streamID, unsent ? TransportError.notConnected(Self.notSent) : TransportError.timedOut)
        }
        if let next { armTimer(for: next, context) }
    }

    /// NIO's frame handler passed `frame` on (encoded, to TLS; `NIOHTTP2FrameDelegate`): a
    /// request's END_STREAM marks its call sent. Called on the connection's event loop.
    func wroteFrame(_ frame: HTTP2Frame) {
        switch frame.payload {
        case .headers(let headers) where headers.endStream: calls[frame.streamID]?.sent = true
        case .data(let data) where data.endStream: calls[frame.streamID]?.sent = true
        default: break
        }
    }

    /// Opens the connection's, or a call's stream's, receive window again once it fell below half.
    private func topUp(_ window: NIOHTTP2WindowUpdatedEvent, _ context: ChannelHandlerContext) {
        guard let inbound = window.inboundWindowSize, !closed else { return }
        let target = window.streamID == .rootStream ? Self.connectionWindow : Self.streamWindow
        guard inbound < target / 2, window.streamID == .rootStream || calls[window.streamID] != nil else { return }
        context.write(wrapOutboundOut(HTTP2Frame(streamID: window.streamID, payload: .windowUpdate(windowSizeIncrement: target - inbound))), promise: nil)
        scheduleFlush(context)
    }
}
