import CommandSupport
import Testing

@Suite("Text from records printed on a terminal cannot steer it")
struct TerminalTextTests {
    @Test("control characters but tab and newline are replaced; a carriage return by a space; other text is unchanged")
    func printable() {
        #expect(TerminalText.printable("sub-1\tOK\nnext") == "sub-1\tOK\nnext")
        #expect(TerminalText.printable("user-42 ünïcödé 🙂") == "user-42 ünïcödé 🙂")
        #expect(TerminalText.printable("x\u{1B}[2K\rERASED") == "x\u{FFFD}[2K ERASED", "an escape that would erase the line and write a verdict")
        #expect(TerminalText.printable("a\u{0}b\u{7F}c\u{9B}d") == "a\u{FFFD}b\u{FFFD}c\u{FFFD}d", "NUL, DEL and a C1 control")
        #expect(TerminalText.printable("{\"a\":1}\r") == "{\"a\":1} ", "JSON's whitespace stays whitespace")
    }
}
