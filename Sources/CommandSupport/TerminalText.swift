/// Text from records anyone may produce to (ids, subjects, items, reasons), made safe to print
/// on an operator's terminal: a control character in it (ESC and the rest of C0 but tab and
/// newline, DEL, C1) could move the cursor, erase a line or rewrite a verdict the operator reads.
package enum TerminalText {
    /// `text` with each control character but tab and newline replaced: a carriage return by a
    /// space (JSON's whitespace stays whitespace), any other by U+FFFD. Text without one is
    /// returned as it is.
    package static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if !isControl(scalar) {
                scalars.append(scalar)
            } else {
                scalars.append(scalar == "\r" ? " " : "\u{FFFD}")
            }
        }
        return String(scalars)
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A: false
        case 0x00...0x1F, 0x7F...0x9F: true
        default: false
        }
    }
}
