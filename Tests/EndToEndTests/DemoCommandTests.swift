import Foundation
import Testing

@Suite("iidbatch demo, as make demo runs it", .heavy)
struct DemoCommandTests {
    @Test("the demo (at a tenth of its size) ends by itself, exit 0, with a reconciliation line showing zero lost")
    func demoEndsWithZeroLost() async throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL
        let (status, output) = try await ChildProcess.run(
            try Programs.iidbatch, ["demo", "--scale", "0.1", "--pipelines", repository.appendingPathComponent("pipelines").path], seconds: 300)
        #expect(status == 0, "\(output)")
        let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("reconciliation: ") }, "\(output)")
        #expect(line.hasSuffix(", 0 lost"))
        #expect(line.contains("112 requests, 112 with an outcome"), "every record, malformed ones included, got an outcome")
        #expect(output.contains("dead letters: 10 records (10 undecodable"), "one per malformed record")
        for op in ["topics.subscribe", "installations.delete", "apns.import", "groups.create", "groups.add", "groups.remove"] {
            #expect(output.contains("  \(op) "), "summary lists \(op)")
        }
        #expect(output.contains("items/s"))
    }
}
