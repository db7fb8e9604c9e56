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

    /// Whether an HTTP/1.1 connection may carry the next call after this answer: the server keeps
    /// it, and the answer is not a 5xx or a 408. A proxy or load balancer that answers early (a
    /// 502, 503, 504 or 408 before the upstream has) may still relay the upstream's late answer
    /// on that connection, and the next call there would read it as its own (another id's
    /// deletion `OK`).
    var mayCarryNextCall: Bool { keepAlive && status != 408 && !(500...599).contains(status) }

    /// The status an HTTP/2 `:status` field says: three ASCII digits, 100 to 599 (RFC 9113
    /// §8.3.2, RFC 9110 §15); nil for anything else (`+200`, `0200`, `123456789`), which is no
    /// answer. Every status read is a metric's label: an unbounded set of them would be too.
    static func status(field: String) -> Int? {
        let digits = Array(field.utf8)
        guard digits.count == 3, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        let value = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        return (100...599).contains(value) ? value : nil
    }
}
