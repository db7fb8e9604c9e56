import Foundation

extension TopicBatchResponse {
    /// The JSON body, written directly: `{"results":[{},{"error":"NOT_FOUND"}]}`.
    public func jsonBody() -> Data {
        var out: [UInt8] = []
        out.reserveCapacity(16 + results.count * 4)
        out.append(contentsOf: Array(#"{"results":["#.utf8))
        for (index, entry) in results.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            if let error = entry.error {
                out.append(contentsOf: Array(#"{"error":"#.utf8))
                JSONValue.appendString(error, to: &out)
                out.append(UInt8(ascii: "}"))
            } else {
                out.append(contentsOf: [UInt8(ascii: "{"), UInt8(ascii: "}")])
            }
        }
        out.append(contentsOf: Array("]}".utf8))
        return Data(out)
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
