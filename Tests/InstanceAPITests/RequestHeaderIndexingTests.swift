import NIOCore
import NIOHPACK
import NIOHTTP1
import Testing

@testable import InstanceAPI

/// HPACK on a connection that carries thousands of calls, each naming its item in `:path`: the
/// fields every call repeats stay in the dynamic table, and the path does not push them out.
@Suite("HTTP/2 request header indexing")
struct RequestHeaderIndexingTests {
    private static let authorization = "Bearer ya29." + String(repeating: "a1B2c3D4", count: 26)

    /// The header block of a subscribe call for `token`, as the connection's encoder writes it.
    private static func block(_ encoder: inout HPACKEncoder, token: String) throws -> ByteBuffer {
        var head = HTTPRequestHead(
            version: .http1_1, method: .PATCH, uri: "/v1/projects/p/registrations/\(token)/topicSubscriptions/movies?allowMissing=true")
        head.headers.add(name: "Host", value: "fcm.googleapis.com")
        head.headers.add(name: "Authorization", value: authorization)
        head.headers.add(name: "X-GOOG-API-FORMAT-VERSION", value: "2")
        head.headers.add(name: "Content-Type", value: "application/json")
        head.headers.add(name: "Content-Length", value: "230")
        var buffer = ByteBuffer()
        try encoder.encode(headers: HTTP2CallHandler.requestHeaders(head, scheme: "https"), to: &buffer)
        return buffer
    }

    /// The bytes of `path` alone, sent without indexing.
    private static func pathAlone(token: String) throws -> Int {
        var alone = ByteBuffer()
        var fresh = HPACKEncoder(allocator: ByteBufferAllocator())
        var path = HPACKHeaders()
        path.add(name: ":path", value: "/v1/projects/p/registrations/\(token)/topicSubscriptions/movies?allowMissing=true", indexing: .nonIndexable)
        try fresh.encode(headers: path, to: &alone)
        return alone.readableBytes
    }

    @Test("over 100 calls with distinct paths, every call's block after the first is its path and a few bytes: the repeated fields stay indexed")
    func repeatedFieldsStayIndexed() throws {
        var encoder = HPACKEncoder(allocator: ByteBufferAllocator())
        let firstToken = String(repeating: "t", count: 163)
        let first = try Self.block(&encoder, token: firstToken)
        // Authorization (~220 bytes) goes out in the first block only.
        #expect(first.readableBytes > (try Self.pathAlone(token: firstToken)) + 150, "first block \(first.readableBytes) bytes")
        for call in 0..<100 {
            let token = NumberText.digits(call, width: 4) + String(repeating: "x", count: 159)
            let block = try Self.block(&encoder, token: token).readableBytes
            let alone = try Self.pathAlone(token: token)
            #expect(block <= alone + 16, "call \(call + 2): \(block) bytes, its path alone \(alone): a repeated field went out again")
        }
        // Decoded, a block is the request's.
        var decoder = HPACKDecoder(allocator: ByteBufferAllocator())
        var replay = HPACKEncoder(allocator: ByteBufferAllocator())
        var again = try Self.block(&replay, token: "abc")
        let fields = try decoder.decodeHeaders(from: &again)
        #expect(fields[":path"] == ["/v1/projects/p/registrations/abc/topicSubscriptions/movies?allowMissing=true"])
        #expect(fields["authorization"] == [Self.authorization])
        #expect(fields[":authority"] == ["fcm.googleapis.com"] && fields["host"].isEmpty)
    }
}
