import WireJSON

extension RequestDecoder {
    /// The most bytes of a subject `scannedSubject(_:)` reads, quotes and escapes counted; a
    /// longer one is not read.
    static let maxScannedSubjectBytes = 1_024

    /// The target of a rejection of `bytes` read unparsed: the subject they seem to name
    /// (`scannedSubject(_:)`), or none.
    static func scannedTarget(_ bytes: [UInt8]) -> [String: String] {
        scannedSubject(bytes).map { [PipelineRequest.Field.subject.rawValue: $0] } ?? [:]
    }

    /// The subject a record that cannot be read as a document (past `maxRecordBytes`, or not
    /// JSON) seems to name: the string after its first `"subject"` that a `:` follows, read by
    /// bytes without parsing the rest. Nil when there is none, it is empty, or it is not stream-safe
    /// text. For erasure reports only: a deletion rejected unread names its subject so that the
    /// subject is not said erased while its deletion never ran (`ErasureReport`). Whatever the
    /// bytes, a subject found here can only add a doubt to a report, never a success.
    static func scannedSubject(_ bytes: [UInt8]) -> String? {
        let key = Array(#""subject""#.utf8)
        var start = bytes.startIndex
        while let found = bytes[start...].firstIndex(of: key[0]) {
            start = found + 1
            guard bytes[found...].starts(with: key) else { continue }
            var index = skipSpace(bytes, from: found + key.count)
            guard index < bytes.endIndex, bytes[index] == UInt8(ascii: ":") else { continue }
            index = skipSpace(bytes, from: index + 1)
            guard index < bytes.endIndex, bytes[index] == UInt8(ascii: "\"") else { continue }
            return string(bytes, openingAt: index)
        }
        return nil
    }

    /// The JSON string whose opening quote is at `quote`, decoded (its escapes too) by the strict
    /// parser, within `maxScannedSubjectBytes`; nil when it does not end there, is empty or is
    /// refused.
    private static func string(_ bytes: [UInt8], openingAt quote: Int) -> String? {
        var index = quote + 1
        var escaped = false
        while index < bytes.endIndex, index - quote <= maxScannedSubjectBytes {
            let byte = bytes[index]
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                guard let text = (try? JSONValue.parse(bytes: Array(bytes[quote...index])))?.stringValue, !text.isEmpty else { return nil }
                return text
            }
            index += 1
        }
        return nil
    }

    private static func skipSpace(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start
        while index < bytes.endIndex, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        return index
    }
}
