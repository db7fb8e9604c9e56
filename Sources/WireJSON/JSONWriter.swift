/// Writes JSON straight into bytes, for the hot bodies (batch calls, outcomes) where Foundation's
/// `JSONEncoder` costs more than the work itself.
///
/// Guarantees: strings are escaped exactly as Foundation's `JSONEncoder` escapes them (`"`, `\`,
/// `/` as `\/`, `\b \f \n \r \t`, other control characters as `\u00xx`, everything else as is),
/// integers are written in decimal, and commas and colons are placed by the writer. The caller
/// writes an object's members in the order it wants them (sorted, to match `.sortedKeys`);
/// `members(_:)` sorts a dictionary's keys as `.sortedKeys` does.
package struct JSONWriter: Sendable {
    /// The document written so far.
    package private(set) var bytes: [UInt8] = []
    /// Whether the next value or key follows another one in its container.
    private var needsComma = false

    /// An empty writer with room for `capacity` bytes.
    package init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    // MARK: - Containers

    /// Opens an object (`{`).
    package mutating func beginObject() { open(UInt8(ascii: "{")) }

    /// Closes the object opened last (`}`).
    package mutating func endObject() { close(UInt8(ascii: "}")) }

    /// Opens an array (`[`).
    package mutating func beginArray() { open(UInt8(ascii: "[")) }

    /// Closes the array opened last (`]`).
    package mutating func endArray() { close(UInt8(ascii: "]")) }

    private mutating func open(_ bracket: UInt8) {
        separate()
        bytes.append(bracket)
        needsComma = false
    }

    private mutating func close(_ bracket: UInt8) {
        bytes.append(bracket)
        needsComma = true
    }

    /// Writes a member's key; its value follows.
    package mutating func key(_ name: String) {
        separate()
        appendQuoted(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes the key `key` names (a case of a type's `CodingKeys`, the one place its wire name
    /// is spelled); its value follows.
    @inlinable
    package mutating func key<Key: CodingKey>(_ key: Key) {
        self.key(key.stringValue)
    }

    // MARK: - Values

    /// Writes a string value.
    package mutating func string(_ text: String) {
        separate()
        appendQuoted(text)
        needsComma = true
    }

    /// Writes `json`, one complete JSON value another writer made, as the next value.
    package mutating func value(json: [UInt8]) {
        separate()
        bytes.append(contentsOf: json)
        needsComma = true
    }

    /// Writes an integer value.
    package mutating func int(_ value: Int) {
        separate()
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var count = 0
        repeat {
            count += 1
            magnitude /= 10
        } while magnitude > 0
        magnitude = value.magnitude
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: count))
        var index = start + count - 1
        repeat {
            bytes[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
            index -= 1
        } while magnitude > 0
        needsComma = true
    }

    /// Writes `true` or `false`.
    package mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: value ? Self.trueBytes : Self.falseBytes)
        needsComma = true
    }

    /// Writes a string value whose text is `ascii`, bytes that need no escaping (a formatted date).
    package mutating func plainString(_ ascii: some Sequence<UInt8>) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: ascii)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    // MARK: - Whole members

    /// Writes `"name":"text"`.
    package mutating func member(_ name: String, _ text: String) {
        key(name)
        string(text)
    }

    /// Writes `"name":value`.
    package mutating func member(_ name: String, _ value: Int) {
        key(name)
        int(value)
    }

    /// Writes `"name":true|false`.
    package mutating func member(_ name: String, _ value: Bool) {
        key(name)
        bool(value)
    }

    /// Writes `"name":"text"`, `name` spelled by `key`.
    @inlinable
    package mutating func member<Key: CodingKey>(_ key: Key, _ text: String) {
        member(key.stringValue, text)
    }

    /// Writes `"name":value`, `name` spelled by `key`.
    @inlinable
    package mutating func member<Key: CodingKey>(_ key: Key, _ value: Int) {
        member(key.stringValue, value)
    }

    /// Writes `"name":true|false`, `name` spelled by `key`.
    @inlinable
    package mutating func member<Key: CodingKey>(_ key: Key, _ value: Bool) {
        member(key.stringValue, value)
    }

    /// Writes an object of `dictionary`'s members, keys sorted as `.sortedKeys` sorts them, each
    /// value written by `value`.
    @inlinable
    package mutating func members<Value>(_ dictionary: [String: Value], _ value: (inout JSONWriter, Value) -> Void) {
        beginObject()
        for name in dictionary.keys.sorted() {
            key(name)
            value(&self, dictionary[name]!)
        }
        endObject()
    }

    /// Writes an array of objects, one per element of `elements`, its members written by `members`.
    @inlinable
    package mutating func objects<Element>(_ elements: some Sequence<Element>, _ members: (inout JSONWriter, Element) -> Void) {
        beginArray()
        for element in elements {
            beginObject()
            members(&self, element)
            endObject()
        }
        endArray()
    }

    /// Writes an array of `strings`.
    package mutating func strings(_ strings: [String]) {
        beginArray()
        for text in strings { string(text) }
        endArray()
    }

    /// Writes an array of `strings`; when none needs escaping (the usual case: tokens and ids),
    /// as copies of their bytes, whole stretches of a compact record's array at once.
    package mutating func strings(_ strings: PackedStrings) {
        guard strings.isPlainJSON else { return self.strings(strings.strings) }
        beginArray()
        bytes.reserveCapacity(bytes.count + strings.byteCount + 3 * strings.count + 1)
        strings.appendJSONElements(to: &bytes)
        endArray()
    }

    // MARK: - Escaping

    /// Whether none of `bytes` needs escaping in a JSON string: no `"`, `\`, `/` or control
    /// character, the bytes `escape(of:)` escapes (a test holds the two together; this one is
    /// written without a branch per byte, for speed).
    package static func isPlain(_ bytes: Span<UInt8>) -> Bool {
        // Branch-free over the bytes, so the compiler vectorises it: this runs per item.
        var special: UInt8 = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            special |= (byte < 0x20 ? 1 : 0) | (byte == UInt8(ascii: "\"") ? 1 : 0) | (byte == UInt8(ascii: "\\") ? 1 : 0) | (byte == UInt8(ascii: "/") ? 1 : 0)
            index += 1
        }
        return special == 0
    }

    /// How many bytes `text` takes inside a JSON string as the writer writes it (its quotes
    /// aside): what an outcome's size bound counts, decided by the rule the writer writes by.
    package static func escapedByteCount(of text: String) -> Int {
        if JSONValue.isPlain(text) { return text.utf8.count }
        var count = 0
        for byte in text.utf8 {
            switch escape(of: byte) {
            case 0: count += 1
            case UInt8(ascii: "u"): count += 6
            default: count += 2
            }
        }
        return count
    }

    /// How `byte` is written inside a JSON string, the one place the escape rules are written:
    /// 0 when as it is, else the byte that follows the `\` of its escape (`u` for `\u00xx`).
    /// As Foundation's `JSONEncoder` escapes: `"`, `\` and `/` by themselves, `\b \f \n \r \t`,
    /// other control characters as `\u00xx`; every other byte (non-ASCII too) as it is.
    private static func escape(of byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): byte
        case 0x08: UInt8(ascii: "b")
        case 0x0C: UInt8(ascii: "f")
        case 0x0A: UInt8(ascii: "n")
        case 0x0D: UInt8(ascii: "r")
        case 0x09: UInt8(ascii: "t")
        case 0..<0x20: UInt8(ascii: "u")
        default: 0
        }
    }

    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)
    private static let hexDigits = Array("0123456789abcdef".utf8)

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func appendQuoted(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        if JSONValue.isPlain(text) {
            bytes.append(contentsOf: text.utf8)
        } else {
            for byte in text.utf8 {
                let escape = Self.escape(of: byte)
                guard escape != 0 else {
                    bytes.append(byte)
                    continue
                }
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(escape)
                if escape == UInt8(ascii: "u") {
                    bytes.append(UInt8(ascii: "0"))
                    bytes.append(UInt8(ascii: "0"))
                    bytes.append(Self.hexDigits[Int(byte >> 4)])
                    bytes.append(Self.hexDigits[Int(byte & 0x0F)])
                }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
