import Foundation
import InstanceAPI

/// The places where Foundation's `JSONSerialization` (swift-corelibs-foundation, on Linux) accepts
/// a document that RFC 8259, and so `JSONValue`, refuses on purpose. The differential fuzz test
/// accepts "we refuse, Foundation accepts" only when one of these explains the refusal at the
/// offset the refusal names, and counts each, so that no case is skipped silently.
enum FoundationJSONDifference: String, CaseIterable, Sendable {
    /// Foundation keeps the last of two members with the same name (as Swift strings: canonically
    /// equivalent names are the same); we refuse the second. RFC 8259 §4: names SHOULD be unique,
    /// and with duplicates "the behavior of software ... is unpredictable".
    case repeatedName = "a repeated member name (Foundation keeps the last)"
    /// Foundation reads `[1,]` and `{"a":1,}`; RFC 8259's grammar has no trailing comma.
    case trailingComma = "a trailing comma (Foundation reads past it)"
    /// Foundation skips a leading UTF-8 byte order mark; RFC 8259 §8.1: implementations MUST NOT
    /// add one and MAY ignore it; a record is not a text file, we refuse it.
    case byteOrderMark = "a UTF-8 byte order mark (Foundation skips it)"
    /// Foundation guesses UTF-16 or UTF-32 from zero bytes among the first four, or from their
    /// byte order marks; RFC 8259 §8.1: JSON exchanged between systems MUST be UTF-8.
    case otherEncoding = "a UTF-16 or UTF-32 guess (Foundation decodes it as such)"
    /// Foundation nests arrays and objects up to 512 deep; we bound them at 64 (RFC 8259 §9 lets
    /// a parser limit depth), far past any request or backend answer.
    case depth = "nesting past 64 (Foundation allows 512)"

    /// The difference that explains `JSONValue` refusing `bytes` with `error` where Foundation
    /// accepted them, checked against the document itself; nil when none does.
    static func explaining(_ error: JSONValue.ParseError, of bytes: [UInt8]) -> FoundationJSONDifference? {
        let offset = error.offset
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return offset == 0 ? .byteOrderMark : nil }
        if bytes.prefix(4).contains(0) || bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) { return .otherEncoding }
        guard offset < bytes.count else { return nil }
        let layout = JSONLayout(bytes)
        guard layout.isStructural(offset) || layout.string(at: offset) != nil else { return nil }
        switch bytes[offset] {
        case UInt8(ascii: "["), UInt8(ascii: "{"):
            return layout.depth[offset] == 64 ? .depth : nil
        case UInt8(ascii: "]"), UInt8(ascii: "}"):
            return layout.previousByte(before: offset)?.byte == UInt8(ascii: ",") ? .trailingComma : nil
        case UInt8(ascii: "\""):
            return repeatsAName(at: offset, in: layout) ? .repeatedName : nil
        default:
            return nil
        }
    }

    /// Whether the string literal at `offset` is a member name that an earlier member of the same
    /// object already has, each name decoded by Foundation.
    private static func repeatsAName(at offset: Int, in layout: JSONLayout) -> Bool {
        guard let literal = layout.string(at: offset), let object = layout.container[offset], layout.bytes[object] == UInt8(ascii: "{"),
            let name = decodedString(layout.bytes[literal])
        else { return false }
        let names = layout.names(inObjectAt: object)
        guard names.contains(literal) else { return false }
        return names.contains { $0.upperBound <= offset && decodedString(layout.bytes[$0]) == name }
    }

    /// A string literal decoded by Foundation.
    private static func decodedString(_ literal: ArraySlice<UInt8>) -> String? {
        (try? JSONSerialization.jsonObject(with: Data(literal), options: .fragmentsAllowed)) as? String
    }
}
