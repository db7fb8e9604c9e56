import CommandSupport
import Testing

@Suite("Text from records printed on a terminal cannot steer it")
struct TerminalTextTests {
    @Test("C0 control characters but tab are replaced, a carriage return or newline by a space; other text is unchanged")
    func printable() {
        #expect(TerminalText.printable("sub-1\tOK") == "sub-1\tOK")
        #expect(TerminalText.printable("x\nsubject user-42: ERASED") == "x subject user-42: ERASED", "no line of its own")
        #expect(TerminalText.printable("user-42 ünïcödé 🙂") == "user-42 ünïcödé 🙂")
        #expect(TerminalText.printable("x\u{1B}[2K\rERASED") == "x\u{FFFD}[2K ERASED", "an escape that would erase the line and write a verdict")
        #expect(TerminalText.printable("a\u{0}b\u{7F}c\u{9B}d") == "a\u{FFFD}b\u{FFFD}c\u{FFFD}d", "NUL, DEL and C1's CSI")
        #expect(TerminalText.printable("{\"a\":1}\r") == "{\"a\":1} ", "JSON's whitespace stays whitespace")
        #expect(!Output.isTerminal, "the tests' output is a pipe: it gets the text as it is")
    }
}
