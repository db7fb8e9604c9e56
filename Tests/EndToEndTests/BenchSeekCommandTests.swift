import Foundation
import Testing

/// `iidbatch bench seek` on a small topic, as a user runs it (its queries are this binary in
/// child processes): it prints its figure line, and the query read only the recent records.
@Suite("iidbatch bench seek, as a user runs it")
struct BenchSeekCommandTests {
    @Test("bench seek fills 20 000 outcomes and prints the time of outcomes --since 5m with the records it read: the recent 1 % only")
    func benchSeek() async throws {
        let result = try await ChildProcess.run(try Programs.iidbatch, ["bench", "seek", "--records", "20000", "--partitions", "4"], seconds: 300)
        #expect(result.status == 0, "\(result.output)")
        let line = try #require(result.output.split(separator: "\n").first { $0.hasPrefix("outcomes --since 5m: ") }, "\(result.output)")
        #expect(line.hasSuffix(" s, read 200 of 20000 records, printed 200 outcomes"), "\(line)")
    }
}
