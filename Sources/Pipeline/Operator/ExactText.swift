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
}
