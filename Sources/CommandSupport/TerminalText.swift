/// Text from records anyone may produce to (ids, subjects, items, reasons), made safe to print
/// on an operator's terminal: a control character in it (ESC, a carriage return, a newline, C1's
/// CSI) could move the cursor, erase a line, or start a line of its own that reads as a verdict.
/// `Output` applies it on terminals only: pipes and files get the bytes.
package enum TerminalText {
    /// `text` as one line, each control character but tab replaced (C0, DEL, C1): a carriage
    /// return or a newline by a space, any other by U+FFFD. Text without one is returned as it is.
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
        case 0x00...0x1F, 0x7F...0x9F: true
        default: false
        }
    }
}
