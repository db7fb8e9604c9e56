/// Text from records anyone may produce to (ids, subjects, items, reasons), made safe to print
/// on an operator's terminal: a C0 control character in it (ESC, a carriage return, a newline)
/// could move the cursor, erase a line, or start a line of its own that reads as a verdict.
package enum TerminalText {
    /// `text` as one line, each C0 control character but tab replaced: a carriage return or a
    /// newline by a space (JSON's whitespace stays whitespace, and a JSON line one line), any
    /// other by U+FFFD. DEL and C1, which JSON strings may hold raw and UTF-8 terminals do not act
    /// on, stay: `--json` lines keep the record's bytes. Text without one is returned as it is.
    package static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if !isControl(scalar) {
                scalars.append(scalar)
            } else {
                scalars.append(scalar == "\r" || scalar == "\n" ? " " : "\u{FFFD}")
            }
        }
        return String(scalars)
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09: false
        case 0x00...0x1F: true
        default: false
        }
    }
}
