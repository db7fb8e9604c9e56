import WireJSON

extension ImportResponse {
    /// The JSON body, written directly: what a `JSONEncoder` writes for the same answer (members
    /// in another order; no `registration_token` where there is none), minus its cost.
    public func jsonBytes() -> [UInt8] {
        var writer = JSONWriter(capacity: 16 + results.count * 200)
        writer.beginObject()
        writer.key(CodingKeys.results)
        writer.objects(results) { writer, entry in
            typealias Key = Entry.CodingKeys
            writer.member(Key.apnsToken, entry.apnsToken)
            writer.member(Key.status, entry.status)
            if let registrationToken = entry.registrationToken { writer.member(Key.registrationToken, registrationToken) }
        }
        writer.endObject()
        return writer.bytes
    }

    /// Parses an answer with the project's JSON parser: the same entries `JSONDecoder` reads,
    /// at a fraction of its cost (it was a quarter of an import call's CPU).
    ///
    /// - Throws: when the body is not JSON, `results` is not an array of objects, an `error`
    ///   stands beside it (the call failed, whatever results it lists), or an entry's
    ///   `apns_token` or `status` is not a string (`registration_token` may be absent or null).
    public init(jsonBody bytes: [UInt8]) throws(JSONValue.ParseError) {
        typealias Key = Entry.CodingKeys
        let results = CodingKeys.results.rawValue
        let answer = try JSONValue.parse(bytes: bytes)
        guard let elements = answer[CodingKeys.results]?.arrayValue else {
            throw JSONValue.ParseError(offset: 0, reason: "'\(results)' must be an array")
        }
        guard answer[FCMErrorBody.CodingKeys.error] == nil else {
            throw JSONValue.ParseError(offset: 0, reason: "an answer with '\(results)' must not hold an error")
        }
        var entries: [Entry] = []
        entries.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            guard case .object = element, let apnsToken = element[Key.apnsToken]?.stringValue, let status = element[Key.status]?.stringValue else {
                throw JSONValue.ParseError(offset: 0, reason: "\(results)[\(index)] must hold the strings \(Key.apnsToken.rawValue) and \(Key.status.rawValue)")
            }
            let registration = element[Key.registrationToken]
            guard registration == nil || registration == .null || registration?.stringValue != nil else {
                throw JSONValue.ParseError(offset: 0, reason: "\(results)[\(index)].\(Key.registrationToken.rawValue) must be a string")
            }
            entries.append(Entry(apnsToken: apnsToken, status: status, registrationToken: registration?.stringValue))
        }
        self.init(results: entries)
    }
}
