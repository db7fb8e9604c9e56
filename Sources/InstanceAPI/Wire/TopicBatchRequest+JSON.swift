import Foundation
import WireJSON

extension TopicBatchRequest {
    /// The JSON body, written directly (the bytes a `JSONEncoder` would produce, minus its cost).
    public func jsonBody() -> Data {
        Data(jsonBytes())
    }

    /// The bytes of `jsonBody()`, for a caller that copies them somewhere else anyway (the
    /// client into the buffer it sends): a `Data` in between would copy them once more.
    public func jsonBytes() -> [UInt8] {
        var writer = JSONWriter(capacity: 48 + to.utf8.count + registrationTokens.byteCount + 3 * registrationTokens.count)
        writer.beginObject()
        writer.member(CodingKeys.to, to)
        writer.key(CodingKeys.registrationTokens)
        writer.strings(registrationTokens)
        writer.endObject()
        return writer.bytes
    }

    /// Parses a body; `to` is kept exactly as sent (prefix or not).
    ///
    /// - Throws: when the body is not JSON, or `to` / `registration_tokens` are missing or mistyped.
    public init(jsonBody: Data) throws(JSONValue.ParseError) {
        let value = try JSONValue.parse(jsonBody)
        guard let to = value[CodingKeys.to]?.stringValue else {
            throw JSONValue.ParseError(offset: 0, reason: "'\(CodingKeys.to.rawValue)' must be a string")
        }
        guard let elements = value[CodingKeys.registrationTokens]?.arrayValue else {
            throw JSONValue.ParseError(offset: 0, reason: "'\(CodingKeys.registrationTokens.rawValue)' must be an array")
        }
        var tokens = PackedStrings(reservingCapacity: elements.count)
        for (index, element) in elements.enumerated() {
            guard let token = element.stringValue else {
                throw JSONValue.ParseError(offset: 0, reason: "\(CodingKeys.registrationTokens.rawValue)[\(index)] must be a string")
            }
            tokens.append(token)
        }
        self.to = to
        self.registrationTokens = tokens
    }
}
