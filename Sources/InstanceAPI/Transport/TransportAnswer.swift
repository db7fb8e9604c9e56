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
