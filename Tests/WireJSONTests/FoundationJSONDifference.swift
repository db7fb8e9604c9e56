import Foundation
import WireJSON

/// The places where Foundation's `JSONSerialization` (swift-corelibs-foundation, on Linux) accepts
/// a document that RFC 8259, and so `JSONValue`, refuses on purpose. The differential fuzz test
/// accepts "we refuse, Foundation accepts" only when one of these explains the refusal at the
/// offset the refusal names, and counts each, so that no case is skipped silently.
enum FoundationJSONDifference: String, CaseIterable, Sendable {
    /// Foundation keeps the last of two members with the same name (as Swift strings: canonically
    /// equivalent names are the same); we refuse the second. RFC 8259 §4: names SHOULD be unique,
    /// and with duplicates "the behavior of software ... is unpredictable". Foundation does not
    /// even check the value it drops for its number's range: our refusal of an earlier value
    /// (`{"a":1e400,"a":1}`) is this difference too.
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
    /// Not laxness but a defect: Foundation drops a raw U+FEFF at the start of a string or right
    /// after an escape (it decodes each run between escapes as a text of its own, and strips the
    /// run's leading byte order mark), where RFC 8259 keeps every character. Foundation is
    /// given such a document with each raw U+FEFF in a string spelled `\uFEFF`, which it reads
    /// right; this counts the documents given so.
    case byteOrderMarkInString = "a raw U+FEFF in a string (given to Foundation as \\uFEFF, which it does not drop)"

    /// `bytes` as Foundation is given them: each raw U+FEFF inside a string spelled `\uFEFF`
    /// (`byteOrderMarkInString`), the same JSON text; nil when there is none.
    static func foundationSpelling(of bytes: [UInt8]) -> [UInt8]? {
        let marks = JSONLayout(bytes).rawByteOrderMarks
        guard !marks.isEmpty else { return nil }
        var spelled: [UInt8] = []
        spelled.reserveCapacity(bytes.count + 3 * marks.count)
        var copied = 0
        for mark in marks {
            spelled += bytes[copied..<mark]
            spelled += Array(#"\uFEFF"#.utf8)
            copied = mark + 3
        }
        return spelled + bytes[copied...]
    }

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
        case UInt8(ascii: "\"") where repeatsAName(at: offset, in: layout):
            return .repeatedName
        default:
            return isInDroppedValue(offset, in: layout) ? .repeatedName : nil
        }
    }

    /// Whether `offset` is inside the value of a member whose name a later member of the same
    /// object has: the value Foundation drops.
    private static func isInDroppedValue(_ offset: Int, in layout: JSONLayout) -> Bool {
        var inner = offset
        while let object = layout.container[inner] {
            defer { inner = object }
            guard layout.bytes[object] == UInt8(ascii: "{") else { continue }
            let names = layout.names(inObjectAt: object)
            guard let owner = names.last(where: { $0.upperBound <= inner }), let name = decodedString(layout.bytes[owner]) else { continue }
            if names.contains(where: { $0.lowerBound > inner && decodedString(layout.bytes[$0]) == name }) { return true }
        }
        return false
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

    /// A string literal decoded by Foundation (spelled as `foundationSpelling` spells it).
    private static func decodedString(_ literal: ArraySlice<UInt8>) -> String? {
        let bytes = foundationSpelling(of: Array(literal)) ?? Array(literal)
        return (try? JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)) as? String
    }
}
