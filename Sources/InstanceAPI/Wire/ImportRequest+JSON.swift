import WireJSON

extension ImportRequest {
    /// The JSON body, written directly: what a `JSONEncoder` writes for the same request (its
    /// members in another order), minus its cost.
    public func jsonBytes() -> [UInt8] {
        var writer = JSONWriter(capacity: 64 + application.utf8.count + apnsTokens.reduce(0) { $0 + $1.utf8.count + 3 })
        writer.beginObject()
        writer.member(CodingKeys.application, application)
        writer.member(CodingKeys.sandbox, sandbox)
        writer.key(CodingKeys.apnsTokens)
        writer.strings(apnsTokens)
        writer.endObject()
        return writer.bytes
    }
}
