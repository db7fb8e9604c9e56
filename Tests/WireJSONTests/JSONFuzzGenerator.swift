import InstanceAPI
import WireJSON

/// Makes the documents of the differential fuzz test from a seed: a random JSON value written
/// with random spelling (whitespace, escapes, raw and escaped non-ASCII text, every number form),
/// then, for most cases, one kind of damage: flipped bytes, invalid UTF-8, a repeated member
/// name, numbers outside RFC 8259's grammar or range, a cut, deep nesting, or structure
/// Foundation is lax about (trailing commas, a byte order mark, zero bytes). The same seed makes
/// the same case.
struct JSONFuzzGenerator {
    private var random: SplitMix64
    private var out: [UInt8] = []
    /// Each number is drawn from `edgeNumbers` half of the time.
    private var edgyNumbers = false
    /// One object is still to repeat one of its names.
    private var nameToRepeat = false
    /// How many numbers were drawn from `edgeNumbers`.
    private var edgesPlaced = 0

    /// A generator for the case of `seed`.
    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    /// The case.
    mutating func makeCase() -> JSONFuzzCase {
        switch random.below(100) {
        case ..<18: return JSONFuzzCase(bytes: document(), recipe: ["valid"])
        case ..<32: return flipped()
        case ..<46: return invalidUTF8()
        case ..<56: return repeatedName()
        case ..<70: return edgeNumber()
        case ..<80: return truncated()
        case ..<86: return deep()
        default: return structural()
        }
    }

    // MARK: - Damage

    private static let interestingBytes: [UInt8] =
        Array("\"\\,:[]{}0123-+.eE \t\n/u".utf8) + [0x00, 0x01, 0x1F, 0x7F, 0x80, 0xBF, 0xC0, 0xC2, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF]

    private mutating func flipped() -> JSONFuzzCase {
        var bytes = document()
        var recipe = ["flipped"]
        for _ in 0...random.below(3) {
            let byte = random.chance(1, in: 2) ? random.pick(Self.interestingBytes) : UInt8(random.below(256))
            switch (random.below(4), bytes.isEmpty) {
            case (0, _), (_, true):
                let offset = random.below(bytes.count + 1)
                bytes.insert(byte, at: offset)
                recipe.append("inserted \(byte) at \(offset)")
            case (1, false):
                let offset = random.below(bytes.count)
                bytes.remove(at: offset)
                recipe.append("removed at \(offset)")
            default:
                let offset = random.below(bytes.count)
                bytes[offset] = byte
                recipe.append("set \(byte) at \(offset)")
            }
        }
        return JSONFuzzCase(bytes: bytes, recipe: recipe)
    }

    /// Ill-formed UTF-8 of every kind (Unicode table 3-7): bytes that never occur, lone
    /// continuations, overlongs, encoded surrogates, past U+10FFFF, 5- and 6-byte forms, cut
    /// sequences.
    static let invalidSequences: [[UInt8]] = [
        [0xFF], [0xFE], [0x80], [0xBF], [0xC0, 0xAF], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF],
        [0xF0, 0x80, 0x80, 0x80], [0xF0, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80],
        [0xFC, 0x84, 0x80, 0x80, 0x80, 0x80], [0xC2], [0xE2, 0x82], [0xF0, 0x9F, 0x8E], [0xC2, 0x41], [0xE2, 0x28, 0xA1], [0xF0, 0x9F, 0x41],
    ]

    /// Well-formed sequences at the edges of each length, as a control.
    static let validSequences: [[UInt8]] = [
        [0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80], [0xEF, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80],
        [0xF4, 0x8F, 0xBF, 0xBF],
    ]

    private mutating func invalidUTF8() -> JSONFuzzCase {
        var bytes = document()
        let valid = random.chance(1, in: 4)
        let sequence = random.pick(valid ? Self.validSequences : Self.invalidSequences)
        let strings = JSONLayout(bytes).strings.filter { $0.count >= 2 }
        let offset: Int
        if !strings.isEmpty, random.chance(4, in: 5) {
            let literal = random.pick(strings)
            offset = literal.lowerBound + 1 + random.below(literal.count - 1)
        } else {
            offset = random.below(bytes.count + 1)
        }
        bytes.insert(contentsOf: sequence, at: offset)
        return JSONFuzzCase(bytes: bytes, recipe: ["\(valid ? "valid" : "invalid") UTF-8 \(sequence) at \(offset)"])
    }

    private mutating func repeatedName() -> JSONFuzzCase {
        nameToRepeat = true
        var bytes = document()
        if nameToRepeat {
            // No object took it: wrap the document in one that does.
            nameToRepeat = false
            let name = memberName()
            out = [UInt8(ascii: "{")]
            write(name)
            out += Array(":".utf8) + bytes + Array(",".utf8)
            write(name)
            out += Array(":null}".utf8)
            bytes = out
        }
        return JSONFuzzCase(bytes: bytes, recipe: ["repeated name"], repeatsName: true)
    }

    /// Numbers outside RFC 8259's grammar, at the edges of a double's range and precision, and
    /// those Foundation reads as integers or decimals.
    static let edgeNumbers = [
        "+1", "+01", ".5", "1.", "01", "-01", "00", "1e", "-", "1E+", "1e-", "1.e5", "-.5", "0x10", "Infinity", "-Infinity", "NaN", "--1", "1e5.",
        "1..2", "1ee5", "1_000", "1e+-1", "0.e1", "-0", "-0.0", "0e0", "1E+2", "1e400", "-1e400", "1e-400", "1.7976931348623157e308",
        "1.7976931348623159e308", "4.9e-324", "2.2250738585072014e-308", "123456789012345678901234567890", "18446744073709551615",
        "18446744073709551616", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
        "0.30000000000000004", "1e-320", "9007199254740993", "0.1234567890123456789012345678901234567890123", "12345678901234567890.5",
        "1" + String(repeating: "0", count: 308), "1" + String(repeating: "0", count: 309), "0." + String(repeating: "0", count: 400) + "1",
    ]

    private mutating func edgeNumber() -> JSONFuzzCase {
        edgyNumbers = true
        edgesPlaced = 0
        defer { edgyNumbers = false }
        var bytes = document()
        if edgesPlaced == 0 {
            bytes = Array("[".utf8) + bytes + Array(",\(random.pick(Self.edgeNumbers))]".utf8)
        }
        return JSONFuzzCase(bytes: bytes, recipe: ["edge numbers"])
    }

    private mutating func truncated() -> JSONFuzzCase {
        let bytes = document()
        let length = random.below(bytes.count + 1)
        return JSONFuzzCase(bytes: Array(bytes.prefix(length)), recipe: ["cut at \(length)"])
    }

    private mutating func deep() -> JSONFuzzCase {
        let depth = random.chance(1, in: 25) ? 100_000 : random.pick([2, 32, 63, 64, 65, 66, 100, 511, 512, 513, 600])
        let inner = random.chance(1, in: 2) ? [] : document()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(depth * 6 + inner.count)
        var closers: [UInt8] = []
        let style = random.below(3)
        for level in 0..<depth {
            if style == 0 || (style == 2 && level % 2 == 0) {
                bytes.append(UInt8(ascii: "["))
                closers.append(UInt8(ascii: "]"))
            } else {
                bytes += Array(#"{"a":"#.utf8)
                closers.append(UInt8(ascii: "}"))
            }
        }
        if inner.isEmpty, closers.last == UInt8(ascii: "}") { bytes += Array("1".utf8) }
        bytes += inner
        let closed = random.chance(9, in: 10)
        if closed { bytes += closers.reversed() }
        return JSONFuzzCase(bytes: bytes, recipe: ["\(depth) deep, style \(style)\(closed ? "" : ", unclosed")"])
    }

    private mutating func structural() -> JSONFuzzCase {
        var bytes = document()
        let layout = JSONLayout(bytes)
        switch random.below(7) {
        case 0:
            let closers = bytes.indices.filter { (bytes[$0] == UInt8(ascii: "]") || bytes[$0] == UInt8(ascii: "}")) && layout.isStructural($0) }
            if let closer = closers.isEmpty ? nil : random.pick(closers) {
                bytes.insert(UInt8(ascii: ","), at: closer)
            } else {
                bytes = Array("[".utf8) + bytes + Array(",]".utf8)
            }
            return JSONFuzzCase(bytes: bytes, recipe: ["trailing comma"])
        case 1:
            let garbage: [[UInt8]] = [
                Array("x".utf8), Array("}".utf8), Array("]".utf8), Array(",".utf8), Array("1".utf8), Array(#""a""#.utf8), Array("null".utf8), [0], [0xFF],
                Array("//c".utf8), Array("/**/".utf8),
            ]
            let added = random.pick(garbage)
            return JSONFuzzCase(bytes: bytes + Array(random.pick(["", " ", "\n"]).utf8) + added, recipe: ["trailing \(added)"])
        case 2:
            let mark = random.pick([[0xEF, 0xBB, 0xBF], [0xFE, 0xFF], [0xFF, 0xFE], [0xEF, 0xBB]] as [[UInt8]])
            return JSONFuzzCase(bytes: mark + bytes, recipe: ["leading \(mark)"])
        case 3:
            let offset = random.below(bytes.count + 1)
            bytes.insert(0, at: offset)
            return JSONFuzzCase(bytes: bytes, recipe: ["zero byte at \(offset)"])
        case 4:
            return JSONFuzzCase(bytes: Array(random.pick(["", " ", "\n\t", "\r"]).utf8), recipe: ["empty"])
        case 5:
            // Whitespace RFC 8259 does not have, between tokens.
            let space = random.pick([[0x0B], [0x0C], [0xC2, 0xA0], [0xE2, 0x80, 0xA8], [0xEF, 0xBB, 0xBF], Array("/* */".utf8)] as [[UInt8]])
            let gaps = bytes.indices.filter { layout.isStructural($0) && [UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "[")].contains(bytes[$0]) }
            let offset = gaps.isEmpty ? 0 : random.pick(gaps) + 1
            bytes.insert(contentsOf: space, at: offset)
            return JSONFuzzCase(bytes: bytes, recipe: ["whitespace \(space) at \(offset)"])
        default:
            // A string's quote or escape turned into something else.
            let escapes = bytes.indices.filter { bytes[$0] == UInt8(ascii: "\\") }
            if let escape = escapes.isEmpty ? nil : random.pick(escapes), escape + 1 < bytes.count {
                let replacement = random.pick(Array("xU0'a\"\\uv".utf8) + [0x00, 0x7F, 0xC3])
                bytes[escape + 1] = replacement
                return JSONFuzzCase(bytes: bytes, recipe: ["escape at \(escape) made \\\(replacement)"])
            }
            return JSONFuzzCase(bytes: bytes, recipe: ["valid (no escape to damage)"])
        }
    }

    // MARK: - Documents

    /// A random document, whitespace around it.
    private mutating func document() -> [UInt8] {
        out = []
        whitespace()
        value(depth: 0)
        whitespace()
        return out
    }

    private mutating func whitespace() {
        guard random.chance(1, in: 4) else { return }
        out += Array(random.pick([" ", "\n", "\t", "\r\n", "  ", " \t "]).utf8)
    }

    private mutating func value(depth: Int) {
        if depth < 5, random.chance(2, in: 5) {
            if random.chance(1, in: 2) { array(depth: depth) } else { object(depth: depth) }
            return
        }
        switch random.below(10) {
        case ..<4: write(text())
        case ..<7:
            if edgyNumbers, random.chance(1, in: 2) {
                edgesPlaced += 1
                out += Array(random.pick(Self.edgeNumbers).utf8)
            } else {
                out += Array(number().utf8)
            }
        case 7: out += Array("true".utf8)
        case 8: out += Array("false".utf8)
        default: out += Array("null".utf8)
        }
    }

    private mutating func elementCount() -> Int {
        random.chance(1, in: 10) ? random.below(30) : random.below(5)
    }

    private mutating func array(depth: Int) {
        out.append(UInt8(ascii: "["))
        whitespace()
        for index in 0..<elementCount() {
            if index > 0 {
                out.append(UInt8(ascii: ","))
                whitespace()
            }
            value(depth: depth + 1)
            whitespace()
        }
        out.append(UInt8(ascii: "]"))
    }

    private mutating func object(depth: Int) {
        out.append(UInt8(ascii: "{"))
        whitespace()
        // Swift's `Set<String>` equates canonically equivalent names, as both parsers do.
        var names: [String] = []
        let count = elementCount()
        for index in 0..<count {
            if index > 0 {
                out.append(UInt8(ascii: ","))
                whitespace()
            }
            var name = memberName()
            if nameToRepeat, !names.isEmpty, random.chance(1, in: 2) || index == count - 1 {
                name = random.pick(names)
                // The same name, perhaps in its other canonically equivalent form.
                if random.chance(1, in: 2) { name = Self.otherForm(of: name) }
                nameToRepeat = false
            } else {
                while names.contains(name) { name = memberName() }
            }
            names.append(name)
            write(name)
            whitespace()
            out.append(UInt8(ascii: ":"))
            whitespace()
            value(depth: depth + 1)
            whitespace()
        }
        out.append(UInt8(ascii: "}"))
    }

    /// `name` in its other canonically equivalent form, for the one name that has two here
    /// (a dictionary could not hold both forms as keys: they are equal strings).
    private static func otherForm(of name: String) -> String {
        if name.unicodeScalars.elementsEqual("\u{E9}".unicodeScalars) { return "e\u{301}" }
        if name.unicodeScalars.elementsEqual("e\u{301}".unicodeScalars) { return "\u{E9}" }
        return name
    }

    private static let commonNames = [
        "id", "op", "tokens", "topic", "results", "error", "a", "b", "", "é", "e\u{301}", "ß", "名", "🎉", "a b", "x\u{7F}", "\u{0}",
    ]

    private mutating func memberName() -> String {
        random.chance(3, in: 5) ? random.pick(Self.commonNames) : text()
    }

    /// Scalars at the edges of each UTF-8 length and of the surrogate gap, and some that
    /// normalization changes.
    private static let edgeScalars: [UInt32] = [
        0x80, 0xFF, 0x7FF, 0x800, 0xFFF, 0xD7FF, 0xE000, 0xFFFD, 0xFEFF, 0xFFFF, 0x10000, 0x1F389, 0x10FFFF, 0x301, 0xE9, 0x2028,
    ]

    private mutating func text() -> String {
        var scalars = String.UnicodeScalarView()
        let length = random.chance(1, in: 20) ? random.below(200) : random.below(9)
        for _ in 0..<length {
            let value: UInt32
            switch random.below(20) {
            case ..<11: value = UInt32(0x20 + random.below(0x5F))
            case ..<13: value = random.chance(1, in: 4) ? 0x7F : UInt32(random.below(0x20))
            case ..<16: value = random.pick(Self.edgeScalars)
            case ..<18: value = UInt32(0x80 + random.below(0xD800 - 0x80))
            default: value = UInt32(0xE000 + random.below(0x110000 - 0xE000))
            }
            scalars.append(Unicode.Scalar(value)!)
        }
        return String(scalars)
    }

    /// Writes `text` as a JSON string literal, each scalar spelled raw or escaped at random (and
    /// those that must be escaped, escaped).
    private mutating func write(_ text: String) {
        out.append(UInt8(ascii: "\""))
        let escapeHeavy = random.chance(1, in: 4)
        for scalar in text.unicodeScalars {
            let value = scalar.value
            let escape = escapeHeavy ? random.chance(3, in: 4) : random.chance(1, in: 20)
            switch value {
            case 0x22: out += Array(#"\""#.utf8)
            case 0x5C: out += Array(#"\\"#.utf8)
            case 0x08 where !escape: out += Array(#"\b"#.utf8)
            case 0x0C where !escape: out += Array(#"\f"#.utf8)
            case 0x0A where !escape: out += Array(#"\n"#.utf8)
            case 0x0D where !escape: out += Array(#"\r"#.utf8)
            case 0x09 where !escape: out += Array(#"\t"#.utf8)
            case 0x2F where escape: out += Array(#"\/"#.utf8)
            case ..<0x20: unicodeEscape(value)
            case 0x10000... where escape:
                let offset = value - 0x10000
                unicodeEscape(0xD800 + (offset >> 10))
                unicodeEscape(0xDC00 + (offset & 0x3FF))
            default:
                if escape { unicodeEscape(value) } else { out += Array(String(scalar).utf8) }
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private mutating func unicodeEscape(_ value: UInt32) {
        let digits = Array((random.chance(1, in: 2) ? "0123456789abcdef" : "0123456789ABCDEF").utf8)
        out += Array(#"\u"#.utf8)
        for shift in stride(from: 12, through: 0, by: -4) { out.append(digits[Int((value >> UInt32(shift)) & 0xF)]) }
    }

    private static let boundaryNumbers = [
        "0", "-0", "1", "-1", "0.0", "1e0", "1E0", "1e+0", "1e-0", "5e-324", "1.7976931348623157e308", "2.2250738585072014e-308",
        "9007199254740992", "9007199254740993", "9223372036854775807", "-9223372036854775808", "18446744073709551615", "1e-7", "0.1",
    ]

    /// A number in RFC 8259's grammar.
    private mutating func number() -> String {
        let sign = random.chance(1, in: 3) ? "-" : ""
        switch random.below(8) {
        case 0: return String(random.below(2001) - 1000)
        case 1: return sign + digits(first: true, count: 1 + random.below(30))
        case 2: return sign + "0"
        case 3: return sign + integerPart() + "." + digits(first: false, count: 1 + random.below(20))
        case 4, 5:
            let mantissa = random.chance(1, in: 2) ? integerPart() : integerPart() + "." + digits(first: false, count: 1 + random.below(17))
            let exponent = random.chance(1, in: 4) ? random.below(400) : random.below(30)
            return sign + mantissa + random.pick(["e", "E"]) + random.pick(["", "+", "-"]) + String(exponent)
        case 6:
            let double = Double(bitPattern: random.next())
            return double.isFinite ? "\(double)" : "0"
        default: return random.pick(Self.boundaryNumbers)
        }
    }

    private mutating func integerPart() -> String {
        random.chance(1, in: 3) ? "0" : digits(first: true, count: 1 + random.below(6))
    }

    private mutating func digits(first: Bool, count: Int) -> String {
        String((0..<count).map { index in Character(String(index == 0 && first ? 1 + random.below(9) : random.below(10))) })
    }
}
