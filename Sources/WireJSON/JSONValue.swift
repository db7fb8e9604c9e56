#if canImport(FoundationEssentials)
    import FoundationEssentials  // Data only
#else
    import Foundation
#endif

/// A parsed JSON document, for the hot batch bodies where Foundation's generic Codable path costs
/// more than the call itself (1,000-entry arrays), and for request records, whose bytes anyone
/// may choose. Strict RFC 8259: anything else is an error naming its byte offset. Text must be
/// well-formed UTF-8 (no byte order mark, no `\u` escape of a lone surrogate), numbers follow
/// the grammar exactly and fit a double, an object names each member once (as Swift compares
/// strings: canonically equivalent names are the same name), and arrays and objects nest at
/// most 64 deep. A refusal quotes at most 40 bytes of the document.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Why a document was refused, with the byte offset.
    public struct ParseError: Error, CustomStringConvertible, Sendable {
        /// Byte offset of the problem: the first byte that breaks the grammar, the first byte of
        /// an ill-formed UTF-8 sequence, the backslash of a bad escape, the start of a number out
        /// of range, the second of two equal member names, the bracket past the depth bound.
        public var offset: Int
        /// What was wrong, quoting at most a few dozen bytes of the document.
        public var reason: String
        /// `invalid JSON at byte <offset>: <reason>`.
        public var description: String { "invalid JSON at byte \(offset): \(reason)" }

        /// A refusal at byte `offset` for `reason`.
        package init(offset: Int, reason: String) {
            self.offset = offset
            self.reason = reason
        }
    }

    /// Parses a whole document.
    package static func parse(_ data: Data) throws(ParseError) -> JSONValue {
        try parse(bytes: [UInt8](data))
    }

    /// Parses a whole document held in `bytes` (a record's value, read without a copy).
    package static func parse(bytes: [UInt8]) throws(ParseError) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        let value = try parser.value(depth: 0)
        try parser.finish()
        return value
    }

    /// Parses a document that must be one object, reading each member whose value is an array
    /// of strings into packed strings (no `String` per element); nil when the document is valid
    /// JSON but not an object. The same document gives the same values as `parse(bytes:)`.
    package static func parseMembers(bytes: [UInt8]) throws(ParseError) -> [String: JSONMember]? {
        var parser = JSONParser(bytes: bytes)
        parser.skipWhitespace()
        guard parser.index < bytes.count, bytes[parser.index] == UInt8(ascii: "{") else {
            _ = try parse(bytes: bytes)
            return nil
        }
        let members = try parser.members(depth: 0) { parser throws(ParseError) in try parser.member(depth: 1) }
        try parser.finish()
        return members
    }

    /// The member `key` of an object.
    package subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The member of an object that `key` names (a case of a type's `CodingKeys`, the one place
    /// its wire name is spelled).
    package subscript<Key: CodingKey>(key: Key) -> JSONValue? {
        self[key.stringValue]
    }

    /// The string, if this is one.
    package var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The elements, if this is an array.
    package var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The boolean, if this is one.
    package var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// True when no byte of `text` is one a JSON writer may escape: a control character, `"`,
    /// `\` or `/` (Foundation's encoder escapes `/`). Such text is written as it is, and takes
    /// exactly its UTF-8 length inside a JSON string. Tokens, ids and codes are plain.
    package static func isPlain(_ text: String) -> Bool {
        JSONWriter.isPlain(text.utf8.span)
    }
}
