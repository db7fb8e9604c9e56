/// `JSONParser`'s numbers: RFC 8259's grammar exactly, read as the nearest double.
extension JSONParser {
    /// Reads the number that starts at `index` (at a `-` or a digit), refusing it at the first
    /// byte that breaks RFC 8259's grammar, or as a whole when a double cannot hold it.
    mutating func number() throws(JSONValue.ParseError) -> Double {
        let start = index
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        let integerStart = index
        guard isDigit(at: index) else { throw numberFail(start, "a digit must follow '-'") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            guard !isDigit(at: index) else { throw numberFail(start, "a number has no leading zeros") }
        } else {
            skipDigits()
        }
        let integerEnd = index
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard isDigit(at: index) else { throw numberFail(start, "a digit must follow the '.'") }
            skipDigits()
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard isDigit(at: index) else { throw numberFail(start, "the exponent needs a digit") }
            skipDigits()
        }
        // An integer of up to 15 digits is exact as a double: computed here, without text.
        if integerEnd == index, index - integerStart <= 15 {
            var magnitude = 0
            for offset in integerStart..<index { magnitude = magnitude * 10 + Int(bytes[offset] &- UInt8(ascii: "0")) }
            return negative ? -Double(magnitude) : Double(magnitude)
        }
        guard let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)), value.isFinite else {
            throw JSONValue.ParseError(offset: start, reason: "number \(quoted(start..<index)) is out of range of a 64-bit double")
        }
        return value
    }

    func isDigit(at offset: Int) -> Bool {
        offset < bytes.count && bytes[offset] &- UInt8(ascii: "0") < 10
    }

    mutating func skipDigits() {
        while isDigit(at: index) { index += 1 }
    }

    /// The refusal, at `index`, of the number that starts at `start`, quoting it to there.
    func numberFail(_ start: Int, _ why: String) -> JSONValue.ParseError {
        fail("invalid number \(quoted(start..<index + 1)): \(why)")
    }
}
