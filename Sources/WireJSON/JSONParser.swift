/// Recursive-descent parsing for `JSONValue`, strict RFC 8259: what the grammar does not produce
/// is refused, never repaired or guessed at. Guarantees, each refusal naming the byte offset:
///
/// - Text is UTF-8, well-formed (Unicode table 3-7): no overlong forms, no encoded surrogates,
///   nothing past U+10FFFF, no cut sequences, no byte order mark; a `\u` escape of a lone
///   surrogate is refused too (as `JSONSerialization` refuses it), so every string read is the
///   exact text of its bytes and two different spellings never read as one string by repair.
/// - Numbers follow `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?` and read as the nearest
///   double; one past a double's range is refused (underflow reads as zero).
/// - An object names each member once; names are compared as Swift strings (equal text, the
///   escapes decoded, under Unicode canonical equivalence).
/// - Strings are stream-safe text (`StreamSafeText`: at most 30 combining marks in a row, escapes
///   decoded), which Swift compares in linear time.
/// - Strings hold no unescaped control character (U+0000 to U+001F); whitespace is space, tab,
///   line feed and carriage return only; nothing but whitespace follows the value.
/// - Arrays and objects nest at most `maxDepth` deep, so no input can exhaust the stack.
/// - A refusal quotes at most `quoteLimit` bytes of the document, cut where a character starts.
///
/// Text runs are scanned eight bytes at a time without decoding (printable ASCII without `"` and
/// `\` in a few word operations), and an ASCII string without escapes is made from its bytes as
/// they are.
package struct JSONParser {
    let bytes: [UInt8]
    var index = 0

    /// A parser at the start of `bytes`.
    package init(bytes: [UInt8]) { self.bytes = bytes }

    /// How deep arrays and objects may nest: the 65th opening bracket inside others is refused.
    /// Requests nest 2 deep and backend answers 4.
    static let maxDepth = 64

    /// The most bytes of the document a refusal quotes.
    static let quoteLimit = 40

    /// Whether `byte` is JSON whitespace: space, tab, line feed or carriage return, nothing else.
    @inlinable
    package static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// True when `bytes` are nothing but whitespace, or an empty object (`{}`) with whitespace
    /// anywhere around and in it: what parses as nothing or as an empty object, decided without
    /// a copy or a parse (a deletion's success answer, one per item).
    @inlinable
    package static func isBlankOrEmptyObject(_ bytes: some Collection<UInt8>) -> Bool {
        var meaningful = bytes.lazy.filter { !isWhitespace($0) }.makeIterator()
        guard let first = meaningful.next() else { return true }
        return first == UInt8(ascii: "{") && meaningful.next() == UInt8(ascii: "}") && meaningful.next() == nil
    }

    mutating func skipWhitespace() {
        while index < bytes.count, Self.isWhitespace(bytes[index]) { index += 1 }
    }

    /// Skips whitespace, then takes `byte` when it comes next; false, taking nothing more, when
    /// something else does.
    package mutating func take(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// Skips whitespace, then reads a string when one comes next; nil when something else does.
    package mutating func takeString() throws(JSONValue.ParseError) -> String? {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == Self.quote else { return nil }
        return try string()
    }

    /// True when nothing but whitespace is left.
    package mutating func atEnd() -> Bool {
        skipWhitespace()
        return index == bytes.count
    }

    /// Skips whitespace, then refuses anything that is left.
    mutating func finish() throws(JSONValue.ParseError) {
        skipWhitespace()
        guard index == bytes.count else { throw unexpected("the end of the document") }
    }

    static let quote = UInt8(ascii: "\"")
    static let backslash = UInt8(ascii: "\\")

    func fail(_ reason: String, at offset: Int? = nil) -> JSONValue.ParseError {
        JSONValue.ParseError(offset: offset ?? index, reason: reason)
    }

    /// The refusal of what is at `index` where `expected` had to come, naming what came: the end
    /// of the document, a character, a control byte, or ill-formed UTF-8.
    func unexpected(_ expected: String) -> JSONValue.ParseError {
        guard index < bytes.count else { return fail("unexpected end of the document; expected \(expected)") }
        let byte = bytes[index]
        if byte >= 0x80 {
            let end: Int
            do { end = try utf8Sequence(at: index) } catch { return error }
            let scalar = String(decoding: bytes[index..<end], as: UTF8.self).unicodeScalars.first!
            let name = "U+" + Self.hex(scalar.value, width: 4)
            let found = scalar.value == 0xFEFF ? "\(name), a byte order mark" : "'\(scalar)' (\(name))"
            return fail("expected \(expected), found \(found)")
        }
        return fail("expected \(expected), found \(Self.describe(byte))")
    }

    /// An ASCII byte for a refusal: printable ones quoted, others by their value.
    static func describe(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(hex(byte))"
    }

    static func hex(_ byte: UInt8) -> String { hex(UInt32(byte), width: 2) }

    /// `value` in upper-case hex, with leading zeros to `width` digits.
    static func hex(_ value: UInt32, width: Int) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// `text` for a refusal, in double quotes with JSON's escapes for quotes, backslashes and
    /// control characters: its first `quoteLimit` bytes at most, cut where a character starts,
    /// and `…` with its length when cut.
    static func quoted(_ text: String) -> String {
        let utf8 = text.utf8
        var end = utf8.index(utf8.startIndex, offsetBy: quoteLimit, limitedBy: utf8.endIndex) ?? utf8.endIndex
        while end != utf8.endIndex, UTF8.isContinuation(utf8[end]) { end = utf8.index(before: end) }
        var shown = "\""
        for scalar in String(text[..<end]).unicodeScalars {
            switch scalar {
            case "\"": shown += "\\\""
            case "\\": shown += "\\\\"
            case "\u{0}"..<"\u{20}", "\u{7F}": shown += "\\u" + hex(scalar.value, width: 4)
            default: shown.unicodeScalars.append(scalar)
            }
        }
        shown += "\""
        return end == utf8.endIndex ? shown : shown + "… (\(utf8.count) bytes)"
    }

    /// The bytes `range` of the document for a refusal, as `quoted` shows text: those of a
    /// number, a literal or an escape (any byte of them that is not UTF-8 shows as U+FFFD).
    func quoted(_ range: Range<Int>) -> String {
        Self.quoted(String(decoding: bytes[range.clamped(to: 0..<bytes.count)], as: UTF8.self))
    }

    // MARK: - Values

    /// Reads the value that comes next; `depth` is how many arrays and objects it is inside.
    mutating func value(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
        skipWhitespace()
        guard index < bytes.count else { throw unexpected("a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case Self.quote: return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try number())
        case UInt8(ascii: "+"), UInt8(ascii: "."):
            throw fail("a number starts with '-' or a digit, not \(Self.describe(bytes[index]))")
        default:
            throw unexpected("a value")
        }
    }

    mutating func literal(_ word: String) throws(JSONValue.ParseError) {
        let start = index
        for byte in word.utf8 {
            guard index < bytes.count, bytes[index] == byte else {
                throw fail("expected \(word), found \(quoted(start..<min(index + 1, bytes.count)))")
            }
            index += 1
        }
    }

    /// Refuses the array or object whose opening bracket is at `index` when `depth` containers
    /// already hold it.
    func checkDepth(_ depth: Int) throws(JSONValue.ParseError) {
        guard depth < Self.maxDepth else { throw fail("arrays and objects nest deeper than \(Self.maxDepth)") }
    }

    mutating func object(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
        .object(try members(depth: depth) { parser throws(JSONValue.ParseError) in try parser.value(depth: depth + 1) })
    }

    /// Reads the object that comes next (the parser is at its `{`, inside `depth` arrays and
    /// objects), each member's value read by `value`; a name given twice is refused at its
    /// second place, naming it and its first.
    mutating func members<Value>(
        depth: Int, _ value: (inout JSONParser) throws(JSONValue.ParseError) -> Value
    ) throws(JSONValue.ParseError) -> [String: Value] {
        try checkDepth(depth)
        let open = index
        var members: [String: Value] = [:]
        guard !opensEmpty(closedBy: UInt8(ascii: "}")) else { return members }
        repeat {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == Self.quote else { throw unexpected("a member name") }
            let nameOffset = index
            let name = try string()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw unexpected("':' after a member name") }
            index += 1
            if members.updateValue(try value(&self), forKey: name) != nil {
                throw repeatedName(name, at: nameOffset, inObjectAt: open)
            }
        } while try !closesAfterElement(UInt8(ascii: "}"), of: "object")
        return members
    }

    /// The refusal of the member name `name` at `offset`, which an earlier member of the object
    /// at `open` already has; it names where (read again, on this path only).
    func repeatedName(_ name: String, at offset: Int, inObjectAt open: Int) -> JSONValue.ParseError {
        var parser = JSONParser(bytes: bytes)
        parser.index = open + 1
        var first: (offset: Int, name: String)?
        while first == nil, parser.index < offset {
            parser.skipWhitespace()
            let at = parser.index
            guard let earlier = try? parser.string(), parser.take(UInt8(ascii: ":")), (try? parser.value(depth: 0)) != nil,
                parser.take(UInt8(ascii: ","))
            else { break }
            if earlier == name { first = (at, earlier) }
        }
        var reason = "member name \(Self.quoted(name)) given twice"
        if let first {
            reason += " (first at byte \(first.offset))"
            if !first.name.utf8.elementsEqual(name.utf8) { reason += ", as the same text under Unicode canonical equivalence" }
        }
        return fail(reason, at: offset)
    }

    /// Takes the opening bracket the parser is at, then the closing one when it comes next:
    /// true for an empty container.
    mutating func opensEmpty(closedBy closing: UInt8) -> Bool {
        index += 1
        skipWhitespace()
        guard index < bytes.count, bytes[index] == closing else { return false }
        index += 1
        return true
    }

    /// After an element of a container: takes a `,` (false: another element follows) or the
    /// container's `closing` bracket (true).
    mutating func closesAfterElement(_ closing: UInt8, of container: String) throws(JSONValue.ParseError) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw unexpected("',' or '\(Character(Unicode.Scalar(closing)))' in an \(container)") }
        switch bytes[index] {
        case UInt8(ascii: ","):
            index += 1
            return false
        case closing:
            index += 1
            return true
        default:
            throw unexpected("',' or '\(Character(Unicode.Scalar(closing)))' in an \(container)")
        }
    }

    /// Reads the value that comes next as a `JSONMember`: an array of strings straight into
    /// packed strings (no `String` per element), anything else as a `JSONValue`.
    mutating func member(depth: Int) throws(JSONValue.ParseError) -> JSONMember {
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "["), depth < Self.maxDepth, let strings = try stringArray() {
            return .strings(strings)
        }
        return .value(try value(depth: depth))
    }

    /// Reads the array that comes next (the parser is at its `[`) when every element is a
    /// string; nil, with the parser back at the `[`, when one is not. ASCII strings without
    /// escapes (the usual tokens and ids) stay where they are in `bytes`; the list only records
    /// their ranges.
    mutating func stringArray() throws(JSONValue.ParseError) -> PackedStrings? {
        let start = index
        var bounds: [Range<Int>] = []
        var slash = false
        // Set once an element had to be unescaped or decoded: it and those after it are copied.
        var copied: PackedStrings?
        guard !opensEmpty(closedBy: UInt8(ascii: "]")) else { return PackedStrings() }
        // Records are mostly written compactly (`["a","b"]`): whitespace is looked for only where
        // a quote does not come next, and a `,` right after an element is taken on the spot.
        while true {
            if index < bytes.count, bytes[index] != Self.quote { skipWhitespace() }
            guard index < bytes.count, bytes[index] == Self.quote else {
                index = start
                return nil
            }
            if copied == nil, let plain = plainString(at: index) {
                bounds.append(plain.text)
                slash = slash || plain.slash
                index = plain.text.upperBound + 1
            } else {
                if copied == nil { copied = PackedStrings(storage: bytes, bounds: bounds, isPlainJSON: !slash) }
                copied!.append(try string())
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if try closesAfterElement(UInt8(ascii: "]"), of: "array") {
                break
            }
        }
        return copied ?? PackedStrings(storage: bytes, bounds: bounds, isPlainJSON: !slash)
    }

    /// The string whose opening quote is at `quote`, when it is ASCII without escapes: the range
    /// of its text in `bytes` and whether it holds a `/`; nil for any other string.
    func plainString(at quote: Int) -> (text: Range<Int>, slash: Bool)? {
        let (end, slash) = plainRun(from: quote + 1)
        guard end < bytes.count, bytes[end] == Self.quote else { return nil }
        return ((quote + 1)..<end, slash)
    }

    /// The end of the run of printable ASCII from `start` that holds no `"` and no `\`.
    func plainRunEnd(from start: Int) -> Int { plainRun(from: start).end }

    /// The end of the run of printable ASCII (0x20...0x7F) from `start` that holds no `"` and no
    /// `\`, and whether the run holds a `/`. Eight bytes are looked at in one go (see
    /// `stopBytes`); the last few, byte by byte.
    func plainRun(from start: Int) -> (end: Int, slash: Bool) {
        bytes.withUnsafeBytes { raw -> (end: Int, slash: Bool) in
            let count = raw.count
            var end = start
            var slash = false
            while end + 8 <= count {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: end, as: UInt64.self))
                let stops = Self.stopBytes(word)
                let slashes = Self.zeroBytes(word ^ Self.lanes(UInt8(ascii: "/")))
                if stops != 0 {
                    // The lowest flagged byte of each mask is exact (a borrow only flags bytes
                    // above a true one): a `/` counts when it comes before the stop.
                    slash = slash || (slashes != 0 && slashes.trailingZeroBitCount < stops.trailingZeroBitCount)
                    return (end + stops.trailingZeroBitCount / 8, slash)
                }
                slash = slash || slashes != 0
                end += 8
            }
            while end < count {
                let byte = raw[end]
                guard byte &- 0x20 < 0x60, byte != Self.quote, byte != Self.backslash else { break }
                slash = slash || byte == UInt8(ascii: "/")
                end += 1
            }
            return (end, slash)
        }
    }

    /// `byte` in each of a word's eight bytes.
    static func lanes(_ byte: UInt8) -> UInt64 { 0x0101_0101_0101_0101 &* UInt64(byte) }

    /// The high bit of each byte of `word` that is zero; bytes above a zero one may be flagged
    /// too (the subtraction's borrow), so only the lowest flag is exact, and whether any is.
    static func zeroBytes(_ word: UInt64) -> UInt64 {
        (word &- lanes(0x01)) & ~word & lanes(0x80)
    }

    /// The high bit of each byte of `word` that ends a plain run (below 0x20, 0x80 or above, `"`
    /// or `\`), with the same exactness as `zeroBytes`: the lowest flag is the first such byte.
    static func stopBytes(_ word: UInt64) -> UInt64 {
        // Below 0x20: subtracting 0x20 borrows into its high bit (or sets it when the byte's was
        // clear); at 0x80 or above the byte's own high bit is set.
        let outside = ((word &- lanes(0x20)) | word) & lanes(0x80)
        return outside | zeroBytes(word ^ lanes(quote)) | zeroBytes(word ^ lanes(backslash))
    }

    mutating func array(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
        try checkDepth(depth)
        var elements: [JSONValue] = []
        guard !opensEmpty(closedBy: UInt8(ascii: "]")) else { return .array(elements) }
        repeat {
            elements.append(try value(depth: depth + 1))
        } while try !closesAfterElement(UInt8(ascii: "]"), of: "array")
        return .array(elements)
    }
}
