/// Where each byte of a document sits, read the simplest way there is: string literals by their
/// quotes and backslashes, arrays and objects by their brackets, nothing validated. It is the
/// fuzz test's view of a document that is independent of the parser under test: a refusal the
/// parser explains by a position (a repeated name, a bracket past the depth bound) is checked
/// against it.
struct JSONLayout {
    /// The document.
    let bytes: [UInt8]
    /// The string literals, quotes included (the last may be unterminated), in order.
    private(set) var strings: [Range<Int>] = []
    /// Per byte: how many arrays and objects are open before it.
    private(set) var depth: [Int] = []
    /// Per byte: the offset of the bracket of the innermost open array or object, nil at the top.
    private(set) var container: [Int?] = []
    /// Where a raw U+FEFF (EF BB BF) is inside a string literal, not right after its backslash.
    private(set) var rawByteOrderMarks: [Int] = []

    /// The layout of `bytes`.
    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        depth.reserveCapacity(bytes.count)
        container.reserveCapacity(bytes.count)
        var open: [Int] = []
        var stringStart: Int?
        var escaped = false
        for (offset, byte) in bytes.enumerated() {
            depth.append(open.count)
            container.append(open.last)
            if let start = stringStart {
                if escaped {
                    escaped = false
                } else if byte == 0xEF, bytes[offset...].starts(with: [0xEF, 0xBB, 0xBF]) {
                    rawByteOrderMarks.append(offset)
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    strings.append(start..<offset + 1)
                    stringStart = nil
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): stringStart = offset
            case UInt8(ascii: "["), UInt8(ascii: "{"): open.append(offset)
            case UInt8(ascii: "]"), UInt8(ascii: "}"): _ = open.popLast()
            default: break
            }
        }
        if let start = stringStart { strings.append(start..<bytes.count) }
    }

    /// The string literal that opens at `offset`, if one does.
    func string(at offset: Int) -> Range<Int>? {
        var low = 0
        var high = strings.count
        while low < high {
            let middle = (low + high) / 2
            if strings[middle].lowerBound < offset { low = middle + 1 } else { high = middle }
        }
        return low < strings.count && strings[low].lowerBound == offset ? strings[low] : nil
    }

    /// Whether `offset` is outside every string literal.
    func isStructural(_ offset: Int) -> Bool {
        !strings.contains { $0.contains(offset) }
    }

    /// The string literals that are member names of the object whose `{` is at `object`, in
    /// order: those directly inside it that a `:` follows.
    func names(inObjectAt object: Int) -> [Range<Int>] {
        strings.filter { literal in
            literal.lowerBound > object && container[literal.lowerBound] == object && nextByte(after: literal.upperBound - 1) == UInt8(ascii: ":")
        }
    }

    /// The first byte after `offset` that is not JSON whitespace.
    func nextByte(after offset: Int) -> UInt8? {
        bytes[(offset + 1)...].first { !Self.isWhitespace($0) }
    }

    /// The last byte before `offset` that is not JSON whitespace, with its offset.
    func previousByte(before offset: Int) -> (offset: Int, byte: UInt8)? {
        guard let found = bytes[..<offset].lastIndex(where: { !Self.isWhitespace($0) }) else { return nil }
        return (found, bytes[found])
    }

    /// Space, tab, line feed, carriage return: RFC 8259's whitespace.
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
