import Foundation
import Hummingbird

extension EmulatorRequest {
    /// The handlers' view of a Hummingbird request: method, path segments, query, headers by
    /// lowercased name, and the body (at most 64 MiB).
    init(_ request: Request) async throws {
        let body = try await request.body.collect(upTo: 64 << 20)
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        self = EmulatorRequest.parse(
            method: request.method.rawValue, target: request.uri.description, headers: headers, body: Data(body.readableBytesView))
    }
}
