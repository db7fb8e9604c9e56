import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP1
import NIOHTTP2
import Testing

@testable import InstanceAPI

@Suite("HTTP/2 calls on one connection handler: frames out, answers in, GOAWAY, resets, deadlines, one flush per turn")
struct HTTP2CallHandlerTests {
    @Test("an HTTP/2 :status is three digits from 100 to 599, or no answer: every status read becomes a metric's label")
    func statusField() {
        #expect(TransportAnswer.status(field: "200") == 200 && TransportAnswer.status(field: "599") == 599 && TransportAnswer.status(field: "100") == 100)
        for field in ["+200", "0200", "20", "123456789", "600", "099", " 200", "2OO", "", "٢٠٠"] {
            #expect(TransportAnswer.status(field: field) == nil, "\(field)")
        }
    }

    /// Counts the flushes that reach the connection.
    private final class FlushCounter: ChannelOutboundHandler {
        typealias OutboundIn = HTTP2Frame
        var flushes = 0
        func flush(context: ChannelHandlerContext) {
            flushes += 1
            context.flush()
        }
    }

    /// Tells the call handler of each frame it writes, as NIO's frame handler does when it passes
    /// a frame on; with `holding`, tells it of none, as NIO's holds a stream's HEADERS while the
    /// server allows no more streams, or its DATA while the flow-control window is shut.
    private final class FrameHandlerStandIn: ChannelOutboundHandler {
        typealias OutboundIn = HTTP2Frame
        let delegate: HTTP2CallHandler
        let holding: Bool
        init(delegate: HTTP2CallHandler, holding: Bool) {
            self.delegate = delegate
            self.holding = holding
        }
        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            if !holding { delegate.wroteFrame(unwrapOutboundIn(data)) }
            context.write(data, promise: promise)
        }
    }

    /// A call's outcome, once there is one.
    private final class Outcome: @unchecked Sendable {
        var result: Result<TransportAnswer, any Error>?
        var answer: TransportAnswer? { try? result?.get() }
        var error: (any Error)? {
            guard case .failure(let error) = result else { return nil }
            return error
        }
    }

    private struct Fixture {
        let channel = EmbeddedChannel()
        let handler: HTTP2CallHandler
        let counter = FlushCounter()

        /// The answer limit of every call this fixture starts.
        let bodyLimit: Int

        init(bodyLimit: Int = 1 << 20, firstStreamID: HTTP2StreamID = 1, budget: AnswerBudget = AnswerBudget(), holdingWrites: Bool = false) throws {
            self.bodyLimit = bodyLimit
            handler = HTTP2CallHandler(budget: budget, firstStreamID: firstStreamID)
            try channel.pipeline.syncOperations.addHandler(counter)
            try channel.pipeline.syncOperations.addHandler(FrameHandlerStandIn(delegate: handler, holding: holdingWrites))
            try channel.pipeline.syncOperations.addHandler(handler)
        }

        var loop: EmbeddedEventLoop { channel.embeddedEventLoop }

        /// Starts a GET of `path`, due `timeout` from the loop's now.
        func start(_ path: String = "/v1/x", body: ByteBuffer? = nil, timeout: TimeAmount = .seconds(30)) -> (HTTP2StreamID?, Outcome) {
            var head = HTTPRequestHead(version: .http1_1, method: body == nil ? .GET : .POST, uri: path)
            head.headers.add(name: "Host", value: "fcm.googleapis.com")
            head.headers.add(name: "Authorization", value: "Bearer t")
            head.headers.add(name: "Connection", value: "keep-alive")
            let promise = loop.makePromise(of: TransportAnswer.self)
            let outcome = Outcome()
            promise.futureResult.whenComplete { outcome.result = $0 }
            let streamID = handler.start(head, body: body, limit: bodyLimit, deadline: loop.now + timeout, promise: promise)
            return (streamID, outcome)
        }

        /// The frames written and flushed so far.
        func written() throws -> [HTTP2Frame] {
            var frames: [HTTP2Frame] = []
            while let frame = try channel.readOutbound(as: HTTP2Frame.self) { frames.append(frame) }
            return frames
        }

        /// The server's answer on `streamID`, in one read: as NIO delivers it, the stream closed
        /// (our request was all sent) before the read completes, unless `closes` is false (the
        /// server answered before the request was all sent and left the stream open).
        func answer(_ streamID: HTTP2StreamID, status: Int = 200, body: String?, closes: Bool = true) throws {
            let headers = HPACKHeaders([(":status", String(status)), ("content-type", "application/json")])
            channel.pipeline.fireChannelRead(HTTP2Frame(streamID: streamID, payload: .headers(.init(headers: headers, endStream: body == nil))))
            if let body {
                channel.pipeline.fireChannelRead(
                    HTTP2Frame(streamID: streamID, payload: .data(.init(data: .byteBuffer(ByteBuffer(string: body)), endStream: true))))
            }
            if closes { closed(streamID, reason: nil) }
            channel.pipeline.fireChannelReadComplete()
            try channel.throwIfErrorCaught()
        }

        func closed(_ streamID: HTTP2StreamID, reason: HTTP2ErrorCode?) {
            channel.pipeline.fireUserInboundEventTriggered(StreamClosedEvent(streamID: streamID, reason: reason))
        }
    }

    @Test("calls started in one turn go out in one flush, on odd increasing streams, with HTTP/2 header fields")
    func coalescedWrites() throws {
        let fixture = try Fixture()
        let started = (0..<3).map { _ in fixture.start() }
        #expect(started.map(\.0) == [1, 3, 5].map { HTTP2StreamID($0) })
        #expect(try fixture.written().isEmpty)
        fixture.loop.run()
        let frames = try fixture.written()
        #expect(fixture.counter.flushes == 1)
        #expect(frames.map(\.streamID) == [1, 3, 5].map { HTTP2StreamID($0) })
        guard case .headers(let headers) = frames[0].payload else {
            Issue.record("not HEADERS: \(frames[0])")
            return
        }
        #expect(headers.endStream)
        #expect(headers.headers.first(name: ":authority") == "fcm.googleapis.com")
        #expect(headers.headers.first(name: ":path") == "/v1/x" && headers.headers.first(name: ":method") == "GET")
        #expect(headers.headers.first(name: "authorization") == "Bearer t")
        #expect(headers.headers.first(name: "host") == nil && headers.headers.first(name: "connection") == nil)
    }

    @Test("a body goes in DATA with END_STREAM; answers complete their own calls, in any order")
    func answers() throws {
        let fixture = try Fixture()
        let (first, one) = fixture.start(body: ByteBuffer(string: "{}"))
        let (second, two) = fixture.start()
        fixture.loop.run()
        let frames = try fixture.written()
        guard case .data(let data) = frames[1].payload else {
            Issue.record("not DATA: \(frames[1])")
            return
        }
        #expect(frames[1].streamID == first && data.endStream)
        try fixture.answer(second!, status: 404, body: nil)
        try fixture.answer(first!, body: "{\"ok\":1}")
        #expect(one.answer?.status == 200 && one.answer?.body == ByteBuffer(string: "{\"ok\":1}"))
        #expect(one.answer?.headers.first(name: "content-type") == "application/json")
        #expect(two.answer?.status == 404 && two.answer?.body.readableBytes == 0)
        // The streams closing after their answers change nothing.
        fixture.closed(first!, reason: nil)
        #expect(fixture.handler.callCount == 0)
    }

    @Test("GOAWAY: calls above its last stream fail as refused (sent again elsewhere), those below are answered, new ones are refused")
    func goAway() throws {
        let fixture = try Fixture()
        let calls = (0..<3).map { _ in fixture.start() }
        fixture.loop.run()
        try fixture.channel.writeInbound(HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: 3, errorCode: .noError, opaqueData: nil)))
        fixture.closed(5, reason: .cancel)
        #expect(calls[2].1.error as? TransportError == .refusedStream)
        try fixture.answer(3, body: "{}")
        #expect(calls[1].1.answer?.status == 200)
        #expect(calls[0].1.result == nil)
        let (late, outcome) = fixture.start()
        #expect(late == nil && outcome.error as? TransportError == .noNewStreams, "not sent: the transport takes the connection out")
    }

    @Test("stream ids run out: the call is not sent and says the connection takes no new streams, so the transport retires it")
    func streamIDsRunOut() throws {
        let fixture = try Fixture(firstStreamID: HTTP2StreamID.maxID.advanced(by: -2))
        let (last, _) = fixture.start()
        #expect(last == HTTP2StreamID.maxID.advanced(by: -2))
        let (none, outcome) = fixture.start()
        #expect(none == nil && outcome.error as? TransportError == .noNewStreams)
    }

    @Test("a stream the server resets fails its call only: REFUSED_STREAM as refused, others with the code")
    func reset() throws {
        let fixture = try Fixture()
        let calls = (0..<3).map { _ in fixture.start() }
        fixture.loop.run()
        try fixture.channel.writeInbound(HTTP2Frame(streamID: 1, payload: .rstStream(.refusedStream)))
        fixture.closed(1, reason: .refusedStream)
        fixture.closed(3, reason: .internalError)
        #expect(calls[0].1.error as? TransportError == .refusedStream)
        #expect((calls[1].1.error as? NIOHTTP2Errors.StreamClosed)?.errorCode == .internalError)
        #expect(calls[2].1.result == nil && fixture.handler.callCount == 1)
    }

    @Test(
        "a stream the server began to answer is no refusal: REFUSED_STREAM or GOAWAY below it after its HEADERS fails the call as cut short (the call may have taken effect), never as unprocessed"
    )
    func answeredThenRefused() throws {
        let fixture = try Fixture()
        let calls = (0..<2).map { _ in fixture.start() }
        fixture.loop.run()
        for (streamID, _) in calls {
            fixture.channel.pipeline.fireChannelRead(HTTP2Frame(streamID: streamID!, payload: .headers(.init(headers: [":status": "200"]))))
        }
        fixture.closed(calls[0].0!, reason: .refusedStream)
        try fixture.channel.writeInbound(HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: 0, errorCode: .noError, opaqueData: nil)))
        fixture.closed(calls[1].0!, reason: .cancel)
        for (_, outcome) in calls {
            #expect(outcome.error as? TransportError == .closedBeforeAnswer, "\(String(describing: outcome.error))")
        }
    }

    @Test("an informational answer (1xx) is the server's too: a reset after it is no refusal")
    func informationalThenRefused() throws {
        let fixture = try Fixture()
        let (streamID, outcome) = fixture.start()
        fixture.loop.run()
        fixture.channel.pipeline.fireChannelRead(HTTP2Frame(streamID: streamID!, payload: .headers(.init(headers: [":status": "103"]))))
        fixture.closed(streamID!, reason: .refusedStream)
        #expect(outcome.error as? TransportError == .closedBeforeAnswer, "\(String(describing: outcome.error))")
    }

    @Test(
        "a call that reaches its deadline with nothing read on the connection since it started makes it silent: no new stream starts there; one with frames read meanwhile does not"
    )
    func silentConnection() throws {
        let fixture = try Fixture()
        let (slow, slowOutcome) = fixture.start(timeout: .seconds(5))
        let (answered, _) = fixture.start(timeout: .seconds(30))
        fixture.loop.run()
        try fixture.answer(answered!, body: "{}")
        fixture.loop.advanceTime(by: .seconds(6))
        #expect(slowOutcome.error as? TransportError == .timedOut && slow != nil)
        let (next, _) = fixture.start(timeout: .seconds(5))
        #expect(next != nil, "a frame was read during the slow call: the connection is alive")
        fixture.loop.advanceTime(by: .seconds(6))
        let ping = try fixture.written().first { if case .ping(_, ack: false) = $0.payload { true } else { false } }
        #expect(ping != nil, "silent for a whole call: a PING asks whether it is alive")
        let (waiting, stranded) = fixture.start()
        #expect(waiting != nil, "until the PING's time is up, streams still start")
        fixture.loop.advanceTime(by: .seconds(6))
        #expect(stranded.error as? TransportError == .timedOut, "a call on the dead connection fails with it, not 30 s later")
        let (after, outcome) = fixture.start()
        #expect(after == nil && outcome.error as? TransportError == .noNewStreams, "no frame back: the transport retires it")
        // Another connection whose PING is answered stays.
        let alive = try Fixture()
        let (held, _) = alive.start(timeout: .seconds(5))
        alive.loop.run()
        alive.loop.advanceTime(by: .seconds(6))
        #expect(held != nil)
        alive.channel.pipeline.fireChannelRead(HTTP2Frame(streamID: .rootStream, payload: .ping(HTTP2PingData(withInteger: 1), ack: true)))
        alive.loop.advanceTime(by: .seconds(6))
        #expect(alive.start().0 != nil, "the PING was answered: the connection is alive")
    }

    @Test("a call past its deadline fails timed out and resets its stream; the others go on")
    func deadline() throws {
        let fixture = try Fixture()
        let (short, early) = fixture.start(timeout: .milliseconds(100))
        let (_, later) = fixture.start(timeout: .seconds(10))
        fixture.loop.run()
        _ = try fixture.written()
        fixture.loop.advanceTime(by: .milliseconds(150))
        #expect(early.error as? TransportError == .timedOut)
        #expect(later.result == nil)
        // Nothing was read during the call: a PING asks whether the connection is alive.
        let frames = try fixture.written().filter { if case .ping = $0.payload { false } else { true } }
        #expect(frames.count == 1 && frames[0].streamID == short)
        guard case .rstStream(.cancel) = frames[0].payload else {
            Issue.record("not RST_STREAM: \(frames[0])")
            return
        }
        fixture.loop.advanceTime(by: .seconds(10))
        #expect(later.error as? TransportError == .timedOut)
    }

    @Test(
        "a call whose request never left NIO's frame handler (the server allowed no stream, or shut the window on its body) fails as not sent at its deadline, not as timed out"
    )
    func deadlineUnsent() throws {
        let fixture = try Fixture(holdingWrites: true)
        let (_, get) = fixture.start(timeout: .milliseconds(100))
        let (_, post) = fixture.start(body: ByteBuffer(string: #"{"a":1}"#), timeout: .milliseconds(100))
        fixture.loop.run()
        fixture.loop.advanceTime(by: .milliseconds(150))
        for outcome in [get, post] {
            guard case .notConnected? = outcome.error as? TransportError else {
                Issue.record("an unsent call failed with \(String(describing: outcome.error)): one that may have been carried out")
                continue
            }
        }
    }

    @Test("an answer larger than the body limit fails its call and resets its stream")
    func bodyLimit() throws {
        let fixture = try Fixture(bodyLimit: 4)
        let (streamID, outcome) = fixture.start()
        fixture.loop.run()
        _ = try fixture.written()
        try fixture.answer(streamID!, body: "12345")
        #expect(outcome.error as? TransportError == .answerTooLarge(limit: 4))
        fixture.loop.run()
        #expect(try fixture.written().map(\.streamID) == [streamID])
    }

    @Test("the connection lost fails every call; a call after fails at once")
    func connectionLost() throws {
        let fixture = try Fixture()
        let calls = (0..<2).map { _ in fixture.start() }
        fixture.loop.run()
        fixture.channel.pipeline.fireChannelInactive()
        #expect(calls.allSatisfy { $0.1.error as? TransportError == .closedBeforeAnswer })
        #expect(fixture.start().1.error as? TransportError == .noNewStreams, "a call on a closed connection was not sent: it goes elsewhere")
    }

    @Test("after an error NIO's frame handler reports (a connection's, or a stream's unwrapped), no new stream starts; the calls in flight go on")
    func errorStopsNewStreams() throws {
        let fixture = try Fixture()
        let calls = (0..<2).map { _ in fixture.start() }
        fixture.loop.run()
        // What NIO fires after a connection error (it has sent GOAWAY and reads no more frames),
        // or, unwrapped, after a stream's error.
        fixture.channel.pipeline.fireErrorCaught(NIOHTTP2Errors.contentLengthViolated())
        fixture.loop.run()
        _ = try? fixture.channel.throwIfErrorCaught()
        #expect(fixture.start().1.error as? TransportError == .noNewStreams, "a new call goes elsewhere, and the transport retires this one")
        #expect(calls.allSatisfy { $0.1.result == nil }, "the calls in flight are not failed for another stream's error")
        try fixture.answer(calls[0].0!, body: "{}")
        #expect(calls[0].1.answer?.status == 200, "an answer that comes is taken")
    }

    @Test("a stream answered while its request was still being sent, and left open by the server, is reset at the end of the read; a closed one is not")
    func answeredOpenStreamIsReset() throws {
        let fixture = try Fixture()
        let (early, earlyOutcome) = fixture.start(body: ByteBuffer(string: "{\"to\":\"x\"}"))
        let (normal, normalOutcome) = fixture.start(body: ByteBuffer(string: "{}"))
        fixture.loop.run()
        _ = try fixture.written()
        try fixture.answer(early!, body: nil, closes: false)
        try fixture.answer(normal!, body: "{}")
        fixture.loop.run()
        #expect(earlyOutcome.answer?.status == 200 && normalOutcome.answer?.status == 200, "the answers stand")
        let frames = try fixture.written()
        #expect(frames.map(\.streamID) == [early], "only the stream NIO still counts is reset")
        if case .rstStream = frames.first?.payload {} else { Issue.record("not a reset: \(frames)") }
        // Closed later by the server: nothing more.
        fixture.closed(early!, reason: nil)
        fixture.channel.pipeline.fireChannelReadComplete()
        fixture.loop.run()
        #expect(try fixture.written().isEmpty)
    }

    @Test("answers being read share one budget: a part that would pass it fails its call; bytes come back when calls end")
    func answerBudget() throws {
        let budget = AnswerBudget(limit: 10)
        let fixture = try Fixture(budget: budget)
        let (a, first) = fixture.start()
        let (b, second) = fixture.start()
        let (c, third) = fixture.start()
        fixture.loop.run()
        func part(_ streamID: HTTP2StreamID, _ text: String, end: Bool = false) {
            fixture.channel.pipeline.fireChannelRead(
                HTTP2Frame(streamID: streamID, payload: .data(.init(data: .byteBuffer(ByteBuffer(string: text)), endStream: end))))
        }
        for streamID in [a!, b!, c!] {
            fixture.channel.pipeline.fireChannelRead(HTTP2Frame(streamID: streamID, payload: .headers(.init(headers: [":status": "200"]))))
        }
        part(a!, "12345678")
        part(b!, "12345678")
        #expect(second.error as? TransportError == .answerBudgetExhausted(limit: 10), "8 + 8 bytes pass a budget of 10")
        #expect(budget.bytesHeld == 8)
        part(a!, "", end: true)
        #expect(first.answer.map { String(buffer: $0.body) } == "12345678")
        #expect(budget.bytesHeld == 0, "a finished call gives its bytes back")
        part(c!, "12345678")
        #expect(budget.bytesHeld == 8)
        fixture.channel.pipeline.fireChannelInactive()
        #expect(third.error as? TransportError == .closedBeforeAnswer && budget.bytesHeld == 0, "and so does a failed one")
    }

    @Test("a cancelled call fails and resets its stream; an unknown stream's frames are ignored")
    func cancel() throws {
        let fixture = try Fixture()
        let (streamID, outcome) = fixture.start()
        fixture.loop.run()
        _ = try fixture.written()
        fixture.handler.cancel(streamID!, CancellationError())
        #expect(outcome.error is CancellationError)
        try fixture.answer(streamID!, body: "{}")
        fixture.loop.run()
        #expect(try fixture.written().map(\.streamID) == [streamID])
    }

    @Test("the connection's receive window is opened again once below half")
    func window() throws {
        let fixture = try Fixture()
        let event = NIOHTTP2WindowUpdatedEvent(streamID: .rootStream, inboundWindowSize: 1000, outboundWindowSize: 65535)
        fixture.channel.pipeline.fireUserInboundEventTriggered(event)
        fixture.loop.run()
        let frames = try fixture.written()
        guard frames.count == 1, case .windowUpdate(let increment) = frames[0].payload else {
            Issue.record("not one WINDOW_UPDATE: \(frames)")
            return
        }
        #expect(frames[0].streamID == .rootStream && increment == HTTP2CallHandler.connectionWindow - 1000)
    }

    @Test("a call's stream window is opened again once below half; a finished stream's is not")
    func streamWindow() throws {
        let fixture = try Fixture()
        let (open, _) = fixture.start()
        let (done, _) = fixture.start()
        fixture.loop.run()
        _ = try fixture.written()
        try fixture.answer(done!, body: "{}")
        for streamID in [open!, done!] {
            let event = NIOHTTP2WindowUpdatedEvent(streamID: streamID, inboundWindowSize: 100, outboundWindowSize: 65535)
            fixture.channel.pipeline.fireUserInboundEventTriggered(event)
        }
        fixture.loop.run()
        let frames = try fixture.written()
        guard frames.count == 1, case .windowUpdate(let increment) = frames[0].payload else {
            Issue.record("not one WINDOW_UPDATE: \(frames)")
            return
        }
        #expect(frames[0].streamID == open && increment == HTTP2CallHandler.streamWindow - 100)
    }
}
