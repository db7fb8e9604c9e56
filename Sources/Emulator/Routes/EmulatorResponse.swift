import Foundation
import InstanceAPI

/// An HTTP answer of the emulator.
public struct EmulatorResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Extra headers (`Content-Type: application/json` is implied for JSON bodies).
    public var headers: [(String, String)]
    /// The body.
    public var body: Data
    /// Items the call carried, for the statistics.
    public var items = 0
    /// The codes its items ended on (`OK`, `NOT_FOUND`, …), for the statistics.
    public var codes: [String] = []

    /// An answer.
    public init(status: Int, headers: [(String, String)] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// This answer, noting that the call carried `items` items that ended on `codes`.
    func counting(items: Int, codes: [String] = []) -> EmulatorResponse {
        var counted = self
        counted.items = items
        counted.codes = codes
        return counted
    }

    /// A JSON answer.
    static func json<T: Encodable>(_ value: T, status: Int = 200, headers: [(String, String)] = []) -> EmulatorResponse {
        EmulatorResponse(status: status, headers: headers, body: (try? JSONEncoder().encode(value)) ?? Data("{}".utf8))
    }

    /// An Instance ID style error: `{"error": "text"}`.
    static func error(_ status: Int, _ text: String, headers: [(String, String)] = []) -> EmulatorResponse {
        json(DeviceGroupErrorBody(error: text), status: status, headers: headers)
    }

    /// An answer that is not the API's: an HTML page with `status`, as a proxy, a load balancer,
    /// a wrong base path or a retired endpoint answers.
    static func page(_ status: Int) -> EmulatorResponse {
        let html =
            "<!DOCTYPE html><html><head><title>Error \(status)</title></head><body><h1>\(status)</h1>"
            + "<p>The requested URL was not found on this server. That’s all we know.</p></body></html>"
        return EmulatorResponse(status: status, headers: [("Content-Type", "text/html; charset=UTF-8")], body: Data(html.utf8))
    }

    /// A Google API style error: `{"error": {"code": N, "message": "...", "status": "NAME"}}`,
    /// with an `FcmError` detail and a `google.rpc.ErrorInfo` detail when given.
    static func googleError(
        _ status: Int, _ name: String, _ message: String, fcmErrorCode: String? = nil,
        errorInfo: (reason: String, domain: String, metadata: [String: String])? = nil, headers: [(String, String)] = []
    ) -> EmulatorResponse {
        var details: [[String: Any]] = []
        if let fcmErrorCode { details.append(["@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": fcmErrorCode]) }
        if let errorInfo {
            details.append([
                "@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": errorInfo.reason, "domain": errorInfo.domain, "metadata": errorInfo.metadata,
            ])
        }
        var error: [String: Any] = ["code": status, "message": message, "status": name]
        if !details.isEmpty { error["details"] = details }
        let body = (try? JSONSerialization.data(withJSONObject: ["error": error], options: [.sortedKeys])) ?? Data()
        return EmulatorResponse(status: status, headers: headers, body: body)
    }
}
