import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTP2
import Testing

@testable import InstanceAPI

/// Issue 33's second review: a call cancelled before its start reached the event loop sends
/// nothing, where it sent its request and a reset in one flush (which the server could act on,
/// and count as a rapid reset).
@Suite("HTTP/2: a call cancelled before its stream opens is not sent")
struct HTTP2CancelBeforeStartTests {
    @Test("cancelled first: the call fails as cancelled and no frame is written")
    func cancelledBeforeStart() throws {
        let channel = EmbeddedChannel()
        let handler = HTTP2CallHandler()
        try channel.pipeline.syncOperations.addHandler(handler)
        let connection = HTTP2BackendConnection(
            origin: BackendOrigin(tls: true, host: "fcm.googleapis.com", port: 443), channel: channel, handler: handler)
        let call = StreamCall()
        call.cancel()
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/v1/x")
        head.headers.add(name: "Host", value: "fcm.googleapis.com")
        let future = connection.exchange(head, body: nil, limit: 1 << 20, deadline: .now() + .seconds(30), call: call)
        channel.embeddedEventLoop.run()
        let failure = NIOLoopBoundBox<(any Error)?>(nil, eventLoop: channel.embeddedEventLoop)
        future.whenFailure { failure.value = $0 }
        channel.embeddedEventLoop.run()
        #expect(failure.value is CancellationError)
        #expect(try channel.readOutbound(as: HTTP2Frame.self) == nil, "nothing was written")
    }
}
