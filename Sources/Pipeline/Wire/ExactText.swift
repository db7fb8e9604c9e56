/// Text compared and hashed by its UTF-8 bytes, not by Swift's canonical equivalence: ids and
/// subjects are wire bytes, and two texts a `String` calls equal (`K` and the Kelvin sign `K`,
/// U+212A) are two ids to the backend, so one's receipt must never stand for the other's.
struct ExactText: Hashable, Sendable {
    /// The text.
    let text: String

    /// `text`, compared byte by byte.
    init(_ text: String) { self.text = text }

    static func == (lhs: ExactText, rhs: ExactText) -> Bool { lhs.text.utf8.elementsEqual(rhs.text.utf8) }

    func hash(into hasher: inout Hasher) {
        hasher.combine(text.utf8.count)
        for byte in text.utf8 { hasher.combine(byte) }
    }

    /// A `String` that is equal to another `key(_:)` exactly when the texts' bytes are: `text`
    /// itself when it is ASCII (ASCII texts are equal as strings only when their bytes are), else
    /// U+FFFF, which no ASCII text holds and nothing decomposes to, and the bytes in hex. For
    /// dictionaries keyed by `String` that must keep texts of other bytes apart.
    static func key(_ text: String) -> String {
        guard !text.utf8.allSatisfy({ $0 < 0x80 }) else { return text }
        let digits = Array("0123456789abcdef".utf8)
        return "\u{FFFF}" + String(decoding: text.utf8.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] }, as: UTF8.self)
    }
}
