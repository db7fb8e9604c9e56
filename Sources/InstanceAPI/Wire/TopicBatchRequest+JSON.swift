import Foundation

extension TopicBatchRequest {
    /// The JSON body, written directly (same bytes a `JSONEncoder` would produce, minus its cost).
    public func jsonBody() -> Data {
        var out: [UInt8] = []
        out.reserveCapacity(48 + to.utf8.count + registrationTokens.reduce(0) { $0 + $1.utf8.count + 3 })
        out.append(contentsOf: Array(#"{"to":"#.utf8))
        JSONValue.appendString(to, to: &out)
        out.append(contentsOf: Array(#","registration_tokens":["#.utf8))
        for (index, token) in registrationTokens.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONValue.appendString(token, to: &out)
        }
        out.append(contentsOf: Array("]}".utf8))
        return Data(out)
    }

    /// Parses a body; `to` is kept exactly as sent (prefix or not).
    ///
    /// - Throws: when the body is not JSON, or `to` / `registration_tokens` are missing or mistyped.
    public init(jsonBody: Data) throws(JSONValue.ParseError) {
        let value = try JSONValue.parse(jsonBody)
        guard let to = value["to"]?.stringValue else { throw JSONValue.ParseError(offset: 0, reason: "'to' must be a string") }
        guard let elements = value["registration_tokens"]?.arrayValue else {
            throw JSONValue.ParseError(offset: 0, reason: "'registration_tokens' must be an array")
        }
        var tokens: [String] = []
        tokens.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            guard let token = element.stringValue else {
                throw JSONValue.ParseError(offset: 0, reason: "registration_tokens[\(index)] must be a string")
            }
            tokens.append(token)
        }
        self.to = to
        self.registrationTokens = tokens
    }
}
