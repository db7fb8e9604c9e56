import CommandSupport
import Foundation
import Pipeline
import Testing

@testable import Bench

/// A benchmark runs the shipped pipeline files as shipped: only topic and group names change,
/// and each override is reported.
@Suite("Bench: the shipped pipeline, renamed and overridden")
struct BenchShippedPipelineTests {
    /// The package's pipelines/ folder.
    static let pipelines = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("pipelines")

    static func shipped(_ name: String) throws -> (path: String, text: String) {
        let path = pipelines.appendingPathComponent(name).path
        return (path, try String(contentsOfFile: path, encoding: .utf8))
    }

    @Test(
        "every shipped file: names prefixed, every other line byte for byte as shipped, no override reported",
        arguments: ["topic-changes.yaml", "deletions.yaml", "apns-imports.yaml", "device-groups.yaml"])
    func renamesOnly(file: String) throws {
        let (path, text) = try Self.shipped(file)
        let original = try PipelineFile.parse(text, file: path, name: "x")
        let rewritten = try BenchShippedPipeline(path: path, prefix: "bench-7")
        let before = text.split(separator: "\n", omittingEmptySubsequences: false)
        let after = rewritten.text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(before.count == after.count)
        var renamed = 0
        for (old, new) in zip(before, after) where old != new {
            let key = String(old.prefix { $0 != ":" })
            #expect(BenchShippedPipeline.nameKeys.contains(key), "only names change: '\(old)' became '\(new)'")
            // The value gains the prefix; the key, spacing and any comment stay.
            let value = old.dropFirst(key.count + 1).drop { $0 == " " }.prefix { $0 != " " }
            #expect(new == old.replacingOccurrences(of: ": \(value)", with: ": bench-7.\(value)"), "'\(old)' became '\(new)'")
            renamed += 1
        }
        #expect(renamed >= 1)
        let pipeline = rewritten.configuration
        #expect(pipeline.requestTopic == "bench-7." + original.requestTopic)
        #expect(pipeline.outcomeTopic == "bench-7." + original.outcomeTopic)
        #expect(pipeline.deadLetterTopic == "bench-7." + original.deadLetterTopic)
        #expect(pipeline.group == "bench-7." + original.group)
        #expect(pipeline.concurrency == original.concurrency && pipeline.callsPerSecond == original.callsPerSecond)
        #expect(pipeline.topicBackend == original.topicBackend && pipeline.maxInFlightItems == original.maxInFlightItems)
        #expect(rewritten.overrides.isEmpty)
        #expect(rewritten.description == "shipped \(path), unchanged but for topic names")
    }

    @Test("an override replaces its line's value only, keeps the comment, and is named in the description")
    func overrideReported() throws {
        let (path, text) = try Self.shipped("topic-changes.yaml")
        let rewritten = try BenchShippedPipeline(path: path, prefix: "b", overrides: [("backend", "iid-batch"), ("max-in-flight-items", "50000")])
        #expect(rewritten.configuration.topicBackend == .iidBatch && rewritten.configuration.maxInFlightItems == 50_000)
        #expect(rewritten.overrides == ["backend=iid-batch", "max-in-flight-items=50000"])
        #expect(rewritten.description.hasSuffix("; overrides: backend=iid-batch, max-in-flight-items=50000"), "\(rewritten.description)")
        let shippedBackend = try #require(text.split(separator: "\n").first { $0.hasPrefix("backend:") })
        let backend = try #require(rewritten.text.split(separator: "\n").first { $0.hasPrefix("backend:") })
        #expect(backend == shippedBackend.replacingOccurrences(of: "backend: fcm-v1", with: "backend: iid-batch"), "\(backend)")
        #expect(backend.contains("# one call per registration"))
    }

    @Test("an override that sets what the file says is none; one the file leaves out is appended; others are refused")
    func overrideEdges() throws {
        let (path, _) = try Self.shipped("topic-changes.yaml")
        let same = try BenchShippedPipeline(path: path, prefix: "b", overrides: [("backend", "fcm-v1")])
        #expect(same.overrides.isEmpty && same.description.hasSuffix("unchanged but for topic names"))

        let text = "request-topic: 'x.requests'   # quoted\nconcurrency: 4\n"
        let appended = try BenchShippedPipeline(text: text, source: "t.yaml", prefix: "b", overrides: [("max-in-flight-items", "7000")])
        #expect(appended.text == "request-topic: 'b.x.requests'   # quoted\nconcurrency: 4\nmax-in-flight-items: 7000\n", "\(appended.text)")
        #expect(appended.overrides == ["max-in-flight-items=7000"])
        #expect(appended.configuration.requestTopic == "b.x.requests" && appended.configuration.maxInFlightItems == 7_000)

        #expect(throws: RuntimeError.self) { try BenchShippedPipeline(text: text, source: "t.yaml", prefix: "b", overrides: [("concurrency", "9")]) }
        #expect(throws: RuntimeError.self) { try BenchShippedPipeline(text: "concurrency: 4\n", source: "t.yaml", prefix: "b") }
    }
}
