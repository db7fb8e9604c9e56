import Foundation
import Testing

/// `iidbatch bench seek` on a small topic, as a user runs it (its queries are this binary in
/// child processes): it prints its figure line, and the query read only the recent records.
@Suite("iidbatch bench seek, as a user runs it", .heavy)
struct BenchSeekCommandTests {
    @Test("bench seek fills 20 000 outcomes and times outcomes --since 5m and a batch's receipt, each reading the recent 1 % only")
    func benchSeek() async throws {
        let result = try await ChildProcess.run(
            try Programs.iidbatch, ["bench", "seek", "--records", "20000", "--partitions", "4", "--receipt-requests", "150"], seconds: 300)
        #expect(result.status == 0, "\(result.output)")
        let line = try #require(result.output.split(separator: "\n").first { $0.hasPrefix("outcomes --since 5m: ") }, "\(result.output)")
        #expect(line.hasSuffix(" s, read 200 of 20000 records, printed 200 outcomes"), "\(line)")
        let receipt = try #require(result.output.split(separator: "\n").first { $0.hasPrefix("batches receipt (150 requests): ") }, "\(result.output)")
        #expect(receipt.hasSuffix(" s, read 200 of 20000 records, receipt of 150 request(s) (succeeded 150), 150 outcome record(s)"), "\(receipt)")
    }
}
