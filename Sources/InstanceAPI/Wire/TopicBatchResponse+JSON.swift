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
        let bytes = [UInt8](jsonBody)
        if let results = Self.usualResults(bytes) {
            self.results = results
            return
        }
        guard let elements = try JSONValue.parse(bytes: bytes)["results"]?.arrayValue else {
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

    /// The usual answer, read without building a JSON tree (1,000 entries a call): an object whose
    /// only member is `results`, an array of `{}` and `{"error": "<name>"}`, with any whitespace.
    /// Nil for anything else (another member, another key in an entry, bad JSON): the general
    /// parser then reads it, and names what is wrong.
    static func usualResults(_ bytes: [UInt8]) -> [Entry]? {
        var parser = JSONParser(bytes: bytes)
        do {
            guard parser.take(UInt8(ascii: "{")), try parser.takeString() == "results", parser.take(UInt8(ascii: ":")),
                parser.take(UInt8(ascii: "["))
            else { return nil }
            var results: [Entry] = []
            if !parser.take(UInt8(ascii: "]")) {
                repeat {
                    guard parser.take(UInt8(ascii: "{")) else { return nil }
                    if parser.take(UInt8(ascii: "}")) {
                        results.append(Entry())
                        continue
                    }
                    guard try parser.takeString() == "error", parser.take(UInt8(ascii: ":")), let error = try parser.takeString(),
                        parser.take(UInt8(ascii: "}"))
                    else { return nil }
                    results.append(Entry(error: error))
                } while parser.take(UInt8(ascii: ","))
                guard parser.take(UInt8(ascii: "]")) else { return nil }
            }
            guard parser.take(UInt8(ascii: "}")), parser.atEnd() else { return nil }
            return results
        } catch {
            return nil
        }
    }
}
