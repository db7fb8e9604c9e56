import CommandSupport
import Foundation
import Pipeline

/// A shipped pipeline file as a benchmark runs it: the file's text line by line as shipped
/// (comments, spacing and every setting), but for its topic and group names, each prefixed so
/// that a run has topics and a group of its own, and the overrides a benchmark was asked for,
/// each of which `description` names. The one owner of what a benchmark may change in a
/// pipeline file.
struct BenchShippedPipeline: Sendable {
    /// The top-level keys that name topics and the consumer group: what is renamed.
    static let nameKeys = ["request-topic", "outcome-topic", "dead-letter-topic", "export-topic", "group"]
    /// The top-level keys a benchmark may override, each a scalar.
    static let overridableKeys = ["backend", "max-in-flight-items"]

    /// The shipped file, as given.
    let source: String
    /// The text the benchmark runs.
    let text: String
    /// The overrides that changed the file, `key=value`, in the order asked.
    let overrides: [String]
    /// The pipeline `text` describes.
    let configuration: PipelineConfiguration

    /// Reads `path` and rewrites it: see `init(text:source:prefix:overrides:)`.
    init(path: String, prefix: String, overrides: [(key: String, value: String)] = []) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw RuntimeError(.noInput, "the shipped pipeline \(path) cannot be read (run from the project's folder, or name the folder with --pipelines)")
        }
        try self.init(text: String(decoding: data, as: UTF8.self), source: path, prefix: prefix, overrides: overrides)
    }

    /// The shipped `text` with every topic and group name in it prefixed with `prefix` and a dot
    /// (names it leaves out default from the request topic, so they follow), and each override's
    /// key set to its value: its line's value replaced, or a line appended where the file has
    /// none. An override that sets what the file already says changes nothing and is not
    /// reported. Every other line stays byte for byte as shipped.
    init(text: String, source: String, prefix: String, overrides: [(key: String, value: String)] = []) throws {
        for override in overrides where !Self.overridableKeys.contains(override.key) {
            throw RuntimeError(.usage, "a benchmark overrides only \(Self.overridableKeys.joined(separator: ", ")), not '\(override.key)'")
        }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var renamed = false
        var pending = overrides
        var changed: [String] = []
        for index in lines.indices {
            guard let (key, value) = Self.setting(in: lines[index]) else { continue }
            if Self.nameKeys.contains(key) {
                guard !value.isEmpty else { throw RuntimeError(.config, "\(source): '\(key)' is no one-line name") }
                lines[index].replaceSubrange(value, with: "\(prefix).\(lines[index][value])")
                renamed = renamed || key == "request-topic"
            } else if let at = pending.firstIndex(where: { $0.key == key }) {
                let override = pending.remove(at: at)
                guard !value.isEmpty else { throw RuntimeError(.config, "\(source): '\(key)' is no one-line value to override") }
                if lines[index][value] != override.value {
                    lines[index].replaceSubrange(value, with: override.value)
                    changed.append("\(key)=\(override.value)")
                }
            }
        }
        guard renamed else { throw RuntimeError(.config, "\(source) names no request-topic on a line of its own") }
        if !pending.isEmpty {
            // Keys the file leaves to their defaults: set after everything shipped.
            let added = pending.map { "\($0.key): \($0.value)" }
            if lines.last == "" { lines.insert(contentsOf: added, at: lines.count - 1) } else { lines += added }
            changed += pending.map { "\($0.key)=\($0.value)" }
        }
        let rewritten = lines.joined(separator: "\n")
        let name = ((source as NSString).lastPathComponent as NSString).deletingPathExtension
        do { configuration = try PipelineFile.parse(rewritten, file: source, name: name) } catch { throw RuntimeError(.config, error.description) }
        self.source = source
        self.text = rewritten
        self.overrides = changed
    }

    /// What the benchmark ran, for its figure's line: the shipped file, and the overrides if any.
    var description: String {
        "shipped \(source), unchanged but for topic names" + (overrides.isEmpty ? "" : "; overrides: " + overrides.joined(separator: ", "))
    }

    /// Writes the text to `folder` under the shipped file's name (the pipeline's name is the
    /// shipped one) and returns its path.
    func write(in folder: URL) throws -> String {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent((source as NSString).lastPathComponent).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A top-level `key: value` line's key and the range of its value (without quotes, a
    /// trailing comment or trailing spaces; empty when the value is a block below).
    private static func setting(in line: String) -> (key: String, value: Range<String.Index>)? {
        guard let first = line.first, first.isLetter, let colon = line.firstIndex(of: ":") else { return nil }
        let key = String(line[..<colon])
        guard key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else { return nil }
        var start = line.index(after: colon)
        while start < line.endIndex, line[start] == " " { start = line.index(after: start) }
        var end = line[start...].first == "#" ? start : line[start...].range(of: " #")?.lowerBound ?? line.endIndex
        while end > start, line[line.index(before: end)] == " " { end = line.index(before: end) }
        if end > start, let quote = line[start...].first, quote == "\"" || quote == "'", line[line.index(before: end)] == quote,
            line.index(after: start) < end
        {
            start = line.index(after: start)
            end = line.index(before: end)
        }
        return (key, start..<end)
    }
}
