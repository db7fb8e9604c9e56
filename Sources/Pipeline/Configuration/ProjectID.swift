/// The rule a Firebase (Google Cloud) project id given by an operator must follow: Google's,
/// 6 to 30 lowercase ASCII letters, digits and hyphens, starting with a letter and not ending
/// with a hyphen (`my-app-1234`); or a legacy domain-scoped id, `example.com:my-app`. So no `/`,
/// `?`, `#`, space or other character that would change the meaning of a URL path it goes into.
///
/// Ids an operator gives are checked so (`project:`, `--project`, `$GOOGLE_CLOUD_PROJECT`); the
/// credentials' own project is Google's (or the emulator's, `demo`), and is checked only to be one
/// a URL path can carry as it is (`credentialsProblem`): a metadata server that answered a page
/// gives none.
public enum ProjectID {
    /// The rule in words, for messages.
    public static let rule = "6-30 lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen (or a legacy domain:project)"

    /// Why `text` is not a project id, naming it; nil when it is one.
    public static func problem(with text: String) -> String? {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let valid = parts.count == 1 ? isModern(parts[0]) : isDomain(parts[0]) && isModern(parts[1])
        return valid ? nil : "'\(text)' is not a Google Cloud project id: \(rule)"
    }

    /// Why the credentials' project `text` cannot be used, naming it: it must be 1 to 100 ASCII
    /// letters, digits, `-`, `.` and `:`, not dots alone (`..` is a path's parent); nil when it is.
    public static func credentialsProblem(with text: String) -> String? {
        let valid =
            (1...100).contains(text.utf8.count) && text.utf8.contains { $0 != UInt8(ascii: ".") }
            && text.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || [UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: ":")].contains(byte)
            }
        return valid ? nil : "'\(text.utf8Prefix(maxBytes: 64))' is not a project id (1-100 letters, digits, '-', '.' and ':')"
    }

    private static func isModern(_ id: Substring) -> Bool {
        let bytes = Array(id.utf8)
        guard (6...30).contains(bytes.count), let first = bytes.first, let last = bytes.last else { return false }
        func lowerOrDigit(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        return (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first) && last != UInt8(ascii: "-")
            && bytes.allSatisfy { lowerOrDigit($0) || $0 == UInt8(ascii: "-") }
    }

    private static func isDomain(_ domain: Substring) -> Bool {
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && domain.utf8.count <= 253
            && labels.allSatisfy { label in
                !label.isEmpty && label.first != "-" && label.last != "-"
                    && label.utf8.allSatisfy {
                        ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "-")
                    }
            }
    }
}
