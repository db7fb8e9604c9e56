import Foundation
import WireJSON

extension FCMErrorBody {
    /// The error body of `body`, only when `body` is the API's own: a JSON object whose one member
    /// is `error`, an object or a string. Nil for anything else (a proxy's page, an empty body,
    /// other JSON: a web framework's `{"timestamp": …, "status": 404, "error": "Not Found", "path":
    /// …}`). Read with the project's strict parser: half of a deletion backlog's answers are such
    /// bodies.
    public init?(apiAnswer body: Data) {
        guard body.first(where: { !JSONParser.isWhitespace($0) }) == UInt8(ascii: "{"),
            case .object(let members)? = try? JSONValue.parse(bytes: [UInt8](body)), members.count == 1,
            let error = members[CodingKeys.error.rawValue]
        else { return nil }
        if let text = error.stringValue {
            self.error = nil
            self.errorString = text
            return
        }
        guard case .object = error, let status = Self.status(error) else { return nil }
        self.error = status
        self.errorString = nil
    }

    /// A member of Google's error, or of one of its details, of another JSON type than Google's
    /// (a `message` that is an array, `details` that is an object): its words would go unread.
    fileprivate struct OtherType: Error {}

    /// Google's error object `error`, every member it reads of Google's type (`code` an integer,
    /// `message` and `status` strings, `details` an array of objects whose members it reads are
    /// strings, `metadata` an object of strings); nil when any is of another type: such a body is
    /// not the API's answer.
    private static func status(_ error: JSONValue) -> Status? {
        typealias Key = Status.CodingKeys
        func text(_ value: JSONValue?) throws(OtherType) -> String? {
            guard let value else { return nil }
            guard let text = value.stringValue else { throw OtherType() }
            return text
        }
        do throws(OtherType) {
            var code: Int?
            if let value = error[Key.code] {
                guard case .number(let number) = value, let exact = Int(exactly: number) else { throw OtherType() }
                code = exact
            }
            var details: [Detail]?
            if let value = error[Key.details] {
                guard let list = value.arrayValue else { throw OtherType() }
                details = []
                for detail in list {
                    typealias Key = Detail.CodingKeys
                    guard case .object = detail else { throw OtherType() }
                    var metadata: [String: String]?
                    if let value = detail[Key.metadata] {
                        guard case .object(let members) = value else { throw OtherType() }
                        metadata = [:]
                        for (name, member) in members { metadata?[name] = try text(member) }
                    }
                    details?.append(
                        Detail(
                            type: try text(detail[Key.type]), errorCode: try text(detail[Key.errorCode]), reason: try text(detail[Key.reason]),
                            domain: try text(detail[Key.domain]), metadata: metadata, resourceName: try text(detail[Key.resourceName])))
                }
            }
            return Status(code: code, message: try text(error[Key.message]), status: try text(error[Key.status]), details: details)
        } catch {
            return nil
        }
    }
}
