import Testing

@testable import WireJSON

/// Issue 33's performance part: the parser's eight-bytes-at-a-time scan of plain text finds the
/// same end, and the same `/`, as a byte-by-byte one, wherever in a word the stop falls.
@Suite("JSON plain-text scan")
struct JSONPlainScanTests {
    /// The byte-by-byte scan the word scan replaced.
    private func reference(_ bytes: [UInt8], from start: Int) -> (end: Int, slash: Bool) {
        var end = start
        var slash = false
        while end < bytes.count {
            let byte = bytes[end]
            guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") else { break }
            slash = slash || byte == UInt8(ascii: "/")
            end += 1
        }
        return (end, slash)
    }

    @Test("every stop byte at every position of runs up to 40 bytes, with and without a `/` before or after it")
    func sameAsByteByByte() {
        let stops: [UInt8] = [0x22, 0x5C, 0x00, 0x1F, 0x0A, 0x80, 0xC3, 0xFF]
        // Bytes next to the stops' values, which a borrow or a wrong lane would mistake for them.
        let plain: [UInt8] = [0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7E, 0x7F, 0x30, 0x2E]
        var checked = 0
        for length in 0...40 {
            for offset in 0..<3 {
                for stop in stops + [nil] {
                    for slashAt in [nil, 0, length / 2, length - 1, length + 1] {
                        var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: offset)
                        for index in 0..<length { bytes.append(plain[(index * 7 + length) % plain.count]) }
                        if let stop { bytes.append(stop) }
                        bytes += [UInt8(ascii: "b"), 0x01, UInt8(ascii: "/")]
                        if let slashAt, slashAt >= 0, offset + slashAt < bytes.count { bytes[offset + slashAt] = UInt8(ascii: "/") }
                        let parser = JSONParser(bytes: bytes)
                        let got = parser.plainRun(from: offset)
                        let want = reference(bytes, from: offset)
                        #expect(got.end == want.end && got.slash == want.slash, "bytes \(bytes) from \(offset)")
                        checked += 1
                    }
                }
            }
        }
        #expect(checked == 41 * 3 * 9 * 5)
    }

    @Test("a 163-character token array reads as its tokens; a stop in the middle of a word ends the plain read")
    func tokens() throws {
        let token = String(repeating: "AbC-_:9", count: 23) + "xy"
        #expect(token.utf8.count == 163)
        let text = "[\"" + token + "\",\"" + token + "/\"]"
        var parser = JSONParser(bytes: Array(text.utf8))
        let strings = try #require(try parser.stringArray())
        #expect(Array(strings) == [token, token + "/"])
        let broken = Array("\"abcdefghij\u{1}klm\"".utf8)
        #expect(JSONParser(bytes: broken).plainString(at: 0) == nil)
        #expect(JSONParser(bytes: broken).plainRunEnd(from: 1) == 11)
    }
}
