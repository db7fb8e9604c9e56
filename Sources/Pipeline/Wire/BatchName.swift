import Foundation
import WireJSON

/// The name of a batch: the job a request belongs to ("gdpr-2026-11-25", "migrate-eu-1"), carried
/// by its requests (`batch`), their outcomes, the batch's manifest and the cancels that name it.
///
/// Guarantees: a valid name holds 1 to `maxBytes` characters of `A-Z a-z 0-9 . _ -` and starts
/// with a letter or digit, so it is safe as a Kafka key, a file name, a metric label and a CSV
/// field without quoting.
public enum BatchName {
    /// The most characters a batch name may take.
    public static let maxBytes = 128

    /// Why `name` is not a batch name, or nil when it is one.
    public static func problem(with name: String) -> String? {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty else { return "must not be empty" }
        guard bytes.count <= maxBytes else { return "has \(bytes.count) bytes, more than the limit of \(maxBytes)" }
        guard isAlphanumeric(bytes[0]) else { return "must start with a letter or digit, not \(RequestRejection.quote(String(name.prefix(1))))" }
        guard let bad = bytes.firstIndex(where: { !isAlphanumeric($0) && $0 != UInt8(ascii: ".") && $0 != UInt8(ascii: "_") && $0 != UInt8(ascii: "-") }) else {
            return nil
        }
        let character = name.unicodeScalars.first { !$0.isASCII || $0.value == UInt32(bytes[bad]) }.map { String($0) } ?? "?"
        return "may hold only A-Z, a-z, 0-9, '.', '_' and '-'; \(RequestRejection.quote(character)) (at byte \(bad)) is not one of them"
    }

    /// A name for a batch read from `input` (a file path, or nil for standard input) at `date`:
    /// the file's base name without extension, reduced to the allowed characters, then the UTC
    /// time to the second (`fids-20261125T204012Z`).
    public static func derived(from input: String?, at date: Date) -> String {
        let base = input.map { (($0 as NSString).lastPathComponent as NSString).deletingPathExtension } ?? "stdin"
        var kept = String(
            base.unicodeScalars.map { scalar in
                scalar.isASCII && (isAlphanumeric(UInt8(scalar.value)) || "._-".unicodeScalars.contains(scalar)) ? Character(scalar) : "-"
            })
        while let first = kept.utf8.first, !isAlphanumeric(first) { kept.removeFirst() }
        if kept.isEmpty { kept = "batch" }
        // 2026-11-25T20:40:12.000Z → 20261125T204012Z
        let stamp = String(WireDate.text(date).prefix(19).filter { $0 != "-" && $0 != ":" }) + "Z"
        return String(kept.prefix(maxBytes - stamp.count - 1)) + "-" + stamp
    }

    /// `name` when `taken` says no batch has it, else the first of `name-2`, `name-3`, … that
    /// none has (`name`, a valid name and so ASCII, cut so that each stays within `maxBytes`).
    public static func unused(_ name: String, taken: (String) -> Bool) -> String {
        guard taken(name) else { return name }
        var number = 2
        while true {
            let suffix = "-\(number)"
            let candidate = String(name.prefix(maxBytes - suffix.utf8.count)) + suffix  // a name is ASCII
            if !taken(candidate) { return candidate }
            number += 1
        }
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
