import HTTPTypes
import Hummingbird
import NIOCore

extension EmulatorResponse {
    /// The answer as Hummingbird sends it; JSON bodies say so in `Content-Type`.
    func httpResponse() -> Response {
        var fields = HTTPFields()
        if !body.isEmpty { fields[.contentType] = "application/json; charset=UTF-8" }
        for (name, value) in headers {
            if let name = HTTPField.Name(name) { fields[name] = value }
        }
        return Response(status: .init(code: status), headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
