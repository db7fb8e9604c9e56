import NIOCore
import NIOHTTP1

/// A complete HTTP answer, and whether its connection can carry the next call.
struct TransportAnswer: Sendable {
    /// The status code.
    var status: Int
    /// The header fields.
    var headers: HTTPHeaders
    /// The body, empty when there was none.
    var body: ByteBuffer
    /// Whether the server keeps the connection open (HTTP/1.1 without `Connection: close`).
    var keepAlive: Bool
}
