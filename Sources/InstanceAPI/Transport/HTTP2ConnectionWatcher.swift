import NIOCore
import NIOHTTP2

/// Sits between an HTTP/2 connection's frame handler and its call handler and reports
/// what the server says of the connection as a whole: how many streams it allows at once (its
/// SETTINGS, the first of which makes the connection ready) and GOAWAY. Runs on the connection's
/// event loop only; frames pass through unchanged.
final class HTTP2ConnectionWatcher: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias InboundOut = HTTP2Frame

    /// The streams the server allows when its SETTINGS do not say (RFC 9113 leaves it unlimited;
    /// it asks servers for at least 100).
    static let defaultMaxStreams = 100

    private let settings: (Int) -> Void
    private let goAway: (HTTP2StreamID) -> Void
    private var maxStreams: Int?

    /// Calls `settings` with the streams allowed at once on the first SETTINGS and on each that
    /// changes them, and `goAway` with the last stream the server processes on each GOAWAY.
    init(settings: @escaping (Int) -> Void, goAway: @escaping (HTTP2StreamID) -> Void) {
        self.settings = settings
        self.goAway = goAway
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.payload {
        case .settings(.settings(let values)):
            let announced = values.last { $0.parameter == .maxConcurrentStreams }.map(\.value)
            let next = announced ?? maxStreams ?? Self.defaultMaxStreams
            if next != maxStreams {
                maxStreams = next
                settings(next)
            }
        case .goAway(let lastStreamID, _, _):
            goAway(lastStreamID)
        default:
            break
        }
        context.fireChannelRead(data)
    }
}
