import NIOCore

/// Passes everything through and reports the first error a new connection's pipeline raises
/// (TLS verification, a handshake the server refused) to `failed`, so the call that opened the
/// connection fails with why, not with a bare close. Runs on the connection's event loop only.
final class ConnectFailureHandler: ChannelInboundHandler {
    typealias InboundIn = NIOAny

    private let failed: (any Error) -> Void

    init(failed: @escaping (any Error) -> Void) {
        self.failed = failed
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        failed(error)
        context.fireErrorCaught(error)
    }
}
