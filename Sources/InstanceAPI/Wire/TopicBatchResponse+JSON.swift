import Foundation
import WireJSON

extension TopicBatchResponse {
    /// The JSON body, written directly: `{"results":[{},{"error":"NOT_FOUND"}]}`.
    public func jsonBody() -> Data {
        var writer = JSONWriter(capacity: 16 + results.count * 4)
        writer.beginObject()
        writer.key(CodingKeys.results)
        writer.objects(results) { writer, entry in
            if let error = entry.error { writer.member(Entry.CodingKeys.error, error) }
        }
        writer.endObject()
        return Data(writer.bytes)
    }

    /// Parses an answer; an entry `{}` is success, `{"error": "<name>"}` a failure.
    ///
    /// - Throws: when the body is not JSON, `results` is not an array of objects, an `error`
    ///   stands beside it, an entry's `error` is not a string, or an entry without `error` is
    ///   not `{}`.
    public init(jsonBody: Data) throws(JSONValue.ParseError) {
        self.init(results: Array(try Self.resultRuns(jsonBody: jsonBody)))
    }

    /// The entries of an answer as runs of equal adjacent entries, read as `init(jsonBody:)`
    /// reads them (the same entries, the same errors). A usual answer of 1,000 successes
    /// becomes one run without a list of 1,000 entries being built.
    ///
    /// - Throws: as `init(jsonBody:)`.
    public static func resultRuns(jsonBody: Data) throws(JSONValue.ParseError) -> RunLengthList<Entry> {
        let bytes = [UInt8](jsonBody)
        if let runs = usualResults(bytes) { return runs }
        let answer = try JSONValue.parse(bytes: bytes)
        guard let elements = answer[CodingKeys.results]?.arrayValue else {
            throw JSONValue.ParseError(offset: 0, reason: "'\(CodingKeys.results.rawValue)' must be an array")
        }
        // An error beside the results (a gateway's, or the APIs' error form) says the call failed:
        // its results are no item's answer.
        guard answer[FCMErrorBody.CodingKeys.error] == nil else {
            throw JSONValue.ParseError(offset: 0, reason: "an answer with '\(CodingKeys.results.rawValue)' must not hold an error")
        }
        var runs = RunLengthList<Entry>()
        for element in elements {
            guard case .object = element else { throw JSONValue.ParseError(offset: 0, reason: "each result must be an object") }
            // `{}` is success and `{"error": "<name>"}` a failure; an `error` of another kind is
            // not the API's, and must never read as success.
            let error = element[Entry.CodingKeys.error]
            guard error == nil || error?.stringValue != nil else {
                throw JSONValue.ParseError(offset: 0, reason: "a result's '\(Entry.CodingKeys.error.rawValue)' must be a string")
            }
            // Only `{}` is success: an entry with other members and no `error` is not the API's.
            if error == nil, case .object(let members) = element, let member = members.keys.sorted().first {
                throw JSONValue.ParseError(
                    offset: 0, reason: "a result without '\(Entry.CodingKeys.error.rawValue)' must be {}, got one with '\(member.utf8Prefix(maxBytes: 64))'")
            }
            runs.append(Entry(error: error?.stringValue))
        }
        return runs
    }

    /// The usual answer, read without building a JSON tree (1,000 entries a call): an object whose
    /// only member is `results`, an array of `{}` and `{"error": "<name>"}`, with any whitespace.
    /// Nil for anything else (another member, another key in an entry, bad JSON): the general
    /// parser then reads it, and names what is wrong.
    static func usualResults(_ bytes: [UInt8]) -> RunLengthList<Entry>? {
        var parser = JSONParser(bytes: bytes)
        do {
            guard parser.take(UInt8(ascii: "{")), try parser.takeString() == CodingKeys.results.rawValue, parser.take(UInt8(ascii: ":")),
                parser.take(UInt8(ascii: "["))
            else { return nil }
            var runs = RunLengthList<Entry>()
            // Successes since the last error, appended as one run.
            var successes = 0
            if !parser.take(UInt8(ascii: "]")) {
                repeat {
                    guard parser.take(UInt8(ascii: "{")) else { return nil }
                    if parser.take(UInt8(ascii: "}")) {
                        successes += 1
                        continue
                    }
                    guard try parser.takeString() == Entry.CodingKeys.error.rawValue, parser.take(UInt8(ascii: ":")), let error = try parser.takeString(),
                        parser.take(UInt8(ascii: "}"))
                    else { return nil }
                    runs.append(Entry(), count: successes)
                    successes = 0
                    runs.append(Entry(error: error))
                } while parser.take(UInt8(ascii: ","))
                guard parser.take(UInt8(ascii: "]")) else { return nil }
            }
            guard parser.take(UInt8(ascii: "}")), parser.atEnd() else { return nil }
            runs.append(Entry(), count: successes)
            return runs
        } catch {
            return nil
        }
    }
}
