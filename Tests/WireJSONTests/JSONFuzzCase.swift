/// One document of the differential fuzz test.
struct JSONFuzzCase: CustomStringConvertible {
    /// The document's bytes.
    var bytes: [UInt8]
    /// How it was made: the kind of document and each mutation applied, for the failure report.
    var recipe: [String] = []
    /// True when a member name was repeated on purpose and nothing else changed: the document
    /// must be refused for that, whatever Foundation does.
    var repeatsName = false

    /// The recipe and the bytes, printable ASCII as it is and anything else as `\xHH`, the
    /// middle left out of a long document.
    var description: String {
        let text =
            bytes.count <= 400 ? show(bytes[...]) : show(bytes.prefix(200)) + "…(\(bytes.count - 400) bytes)…" + show(bytes.suffix(200))
        return "\(recipe.joined(separator: ", ")): \(bytes.count) bytes: \(text)"
    }

    private func show(_ bytes: ArraySlice<UInt8>) -> String {
        bytes.map { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\\") ? String(UnicodeScalar($0)) : "\\x" + hex($0) }.joined()
    }

    private func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}
