import Foundation

extension TopicBatchResponse {
    /// The JSON body, written directly: `{"results":[{},{"error":"NOT_FOUND"}]}`.
    public func jsonBody() -> Data {
        var writer = JSONWriter(capacity: 16 + results.count * 4)
        writer.beginObject()
        writer.key("results")
        writer.beginArray()
        for entry in results {
            writer.beginObject()
            if let error = entry.error { writer.member("error", error) }
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return Data(writer.bytes)
    }

    /// Parses an answer; an entry without a string `error` is success.
    ///
    /// - Throws: when the body is not JSON or `results` is not an array of objects.
    public init(jsonBody: Data) throws(JSONValue.ParseError) {
        guard let elements = try JSONValue.parse(jsonBody)["results"]?.arrayValue else {
            throw JSONValue.ParseError(offset: 0, reason: "'results' must be an array")
        }
        var results: [Entry] = []
        results.reserveCapacity(elements.count)
        for element in elements {
            guard case .object = element else { throw JSONValue.ParseError(offset: 0, reason: "each result must be an object") }
            results.append(Entry(error: element["error"]?.stringValue))
        }
        self.results = results
    }
}
