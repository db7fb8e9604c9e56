import Foundation
import Testing

@Suite("A child's output")
struct ChildOutputTests {
    @Test("a character split across two reads is decoded whole, and the end is seen")
    func splitCharacter() {
        let bytes = Array("paused: false → true\n".utf8)
        let arrow = bytes.firstIndex(of: 0xE2)!
        var output = ChildOutput()
        output.read(Data(bytes[..<(arrow + 1)]))
        #expect(output.text == "paused: false ")
        output.read(Data(bytes[(arrow + 1)...]))
        #expect(output.text == "paused: false → true\n")
        #expect(!output.isComplete)
        output.status = 0
        #expect(!output.isComplete, "exited, but the pipe is still open")
        output.read(Data())
        #expect(output.isComplete)
    }

    @Test("bytes that are not UTF-8 still come out, replaced, when the pipe ends")
    func invalidTail() {
        var output = ChildOutput()
        output.read(Data([0x41, 0xE2, 0x86]))
        #expect(output.text == "A")
        output.read(Data())
        #expect(output.text == "A\u{FFFD}")
    }
}
