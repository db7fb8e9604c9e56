/// `JSONParser`'s strings: escapes, `\u` surrogate pairs, and the well-formedness of their UTF-8.
extension JSONParser {
    /// Reads the string whose opening quote the parser is at.
    mutating func string() throws(JSONValue.ParseError) -> String {
        let opening = index
        index += 1
        let start = index
        // Most strings are printable ASCII without escapes: made from their bytes at once.
        let plainEnd = plainRunEnd(from: start)
        if plainEnd < bytes.count, bytes[plainEnd] == Self.quote {
            index = plainEnd + 1
            return String(decoding: bytes[start..<plainEnd], as: UTF8.self)
        }
        // The text decoded so far, once an escape was met; `run` is where the bytes not yet
        // copied into it start.
        var unescaped: [UInt8] = []
        var escaped = false
        var nonASCII = false
        var run = start
        while true {
            index = plainRunEnd(from: index)
            guard index < bytes.count else { throw fail("unterminated string (opened at byte \(opening))") }
            let byte = bytes[index]
            if byte == Self.quote { break }
            if byte == Self.backslash {
                if !escaped { unescaped.reserveCapacity(index - start + 16) }
                escaped = true
                unescaped.append(contentsOf: bytes[run..<index])
                try escape(into: &unescaped)
                nonASCII = nonASCII || unescaped.last.map { $0 >= 0x80 } == true
                run = index
            } else if byte >= 0x80 {
                nonASCII = true
                index = try utf8Sequence(at: index)
            } else {
                throw fail("control character \(Self.describe(byte)) in a string; write it escaped")
            }
        }
        let text: String
        if escaped {
            unescaped.append(contentsOf: bytes[run..<index])
            text = String(decoding: unescaped, as: UTF8.self)
        } else {
            text = String(decoding: bytes[start..<index], as: UTF8.self)
        }
        if nonASCII, StreamSafeText.exceedsLimit(text.unicodeScalars) {
            throw fail("the string opened at byte \(opening) \(StreamSafeText.reason)", at: opening)
        }
        index += 1
        return text
    }

    /// Reads the escape whose backslash the parser is at, appending the UTF-8 of what it
    /// stands for. A `\u` escape of a high surrogate must be followed by one of a low surrogate
    /// (together: one scalar past U+FFFF); a lone surrogate is refused at its backslash.
    mutating func escape(into out: inout [UInt8]) throws(JSONValue.ParseError) {
        let backslash = index
        guard index + 1 < bytes.count else { throw fail("unterminated escape") }
        let escaped = bytes[index + 1]
        index += 2
        switch escaped {
        case Self.quote, Self.backslash, UInt8(ascii: "/"): out.append(escaped)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "u"):
            var scalar = try hex4(escapeAt: backslash)
            switch scalar {
            case 0xD800..<0xDC00:
                let low = index
                guard index + 1 < bytes.count, bytes[index] == Self.backslash, bytes[index + 1] == UInt8(ascii: "u") else {
                    throw fail("\(quoted(backslash..<backslash + 6)) is a lone surrogate: no \\u escape of a low surrogate follows", at: backslash)
                }
                index += 2
                let second = try hex4(escapeAt: low)
                guard (0xDC00..<0xE000).contains(second) else {
                    throw fail("\(quoted(backslash..<backslash + 6)) is a lone surrogate: \(quoted(low..<low + 6)) is not a low one", at: backslash)
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (second - 0xDC00)
            case 0xDC00..<0xE000:
                throw fail("\(quoted(backslash..<backslash + 6)) is a lone low surrogate", at: backslash)
            default:
                break
            }
            Self.appendUTF8(of: scalar, to: &out)
        default:
            throw fail("unknown escape \(quoted(backslash..<backslash + 2))", at: backslash)
        }
    }

    /// Reads the four hex digits of the `\u` escape at `backslash`.
    mutating func hex4(escapeAt backslash: Int) throws(JSONValue.ParseError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count else { throw fail("unterminated \\u escape", at: backslash) }
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default:
                let shown = byte < 0x80 ? Self.describe(byte) : "a non-ASCII byte"
                throw fail("\\u escape needs four hex digits, found \(shown)", at: backslash)
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    /// Appends the UTF-8 form of `scalar` (a Unicode scalar value).
    static func appendUTF8(of scalar: UInt32, to out: inout [UInt8]) {
        switch scalar {
        case ..<0x80:
            out.append(UInt8(scalar))
        case ..<0x800:
            out.append(0xC0 | UInt8(scalar >> 6))
            out.append(0x80 | UInt8(scalar & 0x3F))
        case ..<0x10000:
            out.append(0xE0 | UInt8(scalar >> 12))
            out.append(0x80 | UInt8((scalar >> 6) & 0x3F))
            out.append(0x80 | UInt8(scalar & 0x3F))
        default:
            out.append(0xF0 | UInt8(scalar >> 18))
            out.append(0x80 | UInt8((scalar >> 12) & 0x3F))
            out.append(0x80 | UInt8((scalar >> 6) & 0x3F))
            out.append(0x80 | UInt8(scalar & 0x3F))
        }
    }

    /// The end of the well-formed UTF-8 sequence whose first byte (0x80 or above) is at
    /// `start` (Unicode table 3-7); refused at `start`, naming what is wrong, when it is not one.
    func utf8Sequence(at start: Int) throws(JSONValue.ParseError) -> Int {
        let lead = bytes[start]
        let length: Int
        // The range the second byte must be in: narrower than 0x80...0xBF after the leads
        // whose full range would allow overlongs, surrogates, or scalars past U+10FFFF.
        var second: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            second = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            second = 0x80...0x9F
        case 0xF0:
            length = 4
            second = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            second = 0x80...0x8F
        case 0x80...0xBF: throw invalidUTF8(at: start, length: 1, "a continuation byte without a lead byte")
        case 0xC0, 0xC1: throw invalidUTF8(at: start, length: 2, "an overlong encoding")
        default: throw invalidUTF8(at: start, length: 1, "a byte that UTF-8 never uses")
        }
        guard start + 1 < bytes.count, second.contains(bytes[start + 1]) else {
            let next = start + 1 < bytes.count ? bytes[start + 1] : 0
            guard UTF8.isContinuation(next) else { throw invalidUTF8(at: start, length: 1, "a sequence cut short") }
            switch lead {
            case 0xE0, 0xF0: throw invalidUTF8(at: start, length: length, "an overlong encoding")
            case 0xED: throw invalidUTF8(at: start, length: length, "a UTF-16 surrogate encoded in UTF-8")
            default: throw invalidUTF8(at: start, length: length, "a code point past U+10FFFF")
            }
        }
        for offset in start + 2..<start + length {
            guard offset < bytes.count, UTF8.isContinuation(bytes[offset]) else {
                throw invalidUTF8(at: start, length: offset - start, "a sequence cut short")
            }
        }
        return start + length
    }

    /// The refusal of ill-formed UTF-8 at `start`, showing up to `length` of its bytes.
    func invalidUTF8(at start: Int, length: Int, _ why: String) -> JSONValue.ParseError {
        let shown = bytes[start..<min(start + max(length, 1), bytes.count)].map { "0x" + Self.hex($0) }.joined(separator: " ")
        return fail("invalid UTF-8: \(why) (\(shown))", at: start)
    }
}
