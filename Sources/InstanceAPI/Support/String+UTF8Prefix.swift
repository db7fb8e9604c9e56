extension String {
    /// The longest start of the text whose UTF-8 takes at most `maxBytes` bytes, cut between two
    /// Unicode scalars (never inside one's bytes, so the result is valid UTF-8 and never longer
    /// than `maxBytes`). A cut may fall inside a character (a letter and its combining marks):
    /// one character can take hundreds of kilobytes, and a bound in characters bounds nothing.
    public func utf8Prefix(maxBytes: Int) -> String {
        let utf8 = self.utf8
        guard utf8.count > maxBytes else { return self }
        guard maxBytes > 0 else { return "" }
        var end = utf8.index(utf8.startIndex, offsetBy: maxBytes)
        // A byte 10xxxxxx continues a scalar: the cut goes back to the start of that scalar.
        while end > utf8.startIndex, utf8[end] & 0xC0 == 0x80 { end = utf8.index(before: end) }
        return String(decoding: utf8[..<end], as: UTF8.self)
    }
}
