import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Adapts Hummingbird's requests to `EmulatorBackend.handle` and back.
struct EmulatorHTTPResponder: HTTPResponder {
    typealias Context = BasicRequestContext

    let backend: EmulatorBackend

    func respond(to request: Request, context: Context) async throws -> Response {
        let body = try await request.body.collect(upTo: 64 << 20)
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        let parsed = EmulatorRequest.parse(
            method: request.method.rawValue, target: request.uri.description, headers: headers, body: Data(body.readableBytesView))
        let answer = await backend.handle(parsed)
        var fields = HTTPFields()
        if !answer.body.isEmpty { fields[.contentType] = "application/json; charset=UTF-8" }
        for (name, value) in answer.headers {
            if let name = HTTPField.Name(name) { fields[name] = value }
        }
        return Response(status: .init(code: answer.status), headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: answer.body)))
    }
}
