import ArgumentParser
import Testing

@testable import iidbatch

/// `--timeout` stays within what librdkafka's timeouts take (`KafkaTimeout.maximumMilliseconds`), so a long
/// one fails on the command line naming the bound, not later naming a property the user never set.
@Suite("--timeout: bounded by librdkafka's largest timeout")
struct KafkaTimeoutTests {
    @Test("30d is refused naming the bound; 24d, the largest whole day under it, is taken")
    func bound() throws {
        let error = #expect(throws: (any Error).self) { try KafkaTimeout.parse(["--timeout", "30d"]) }
        let text = error.map { KafkaTimeout.message(for: $0) } ?? ""
        #expect(text.contains("30d") && text.contains("2147483647ms"), "\(text)")
        let largest = try KafkaTimeout.parse(["--timeout", "24d"])
        #expect(largest.milliseconds == 24 * 86_400_000)
        #expect(try KafkaTimeout.parse(["--timeout", "2147483647ms"]).milliseconds == 2_147_483_647)
        #expect(throws: (any Error).self) { try KafkaTimeout.parse(["--timeout", "2147483648ms"]) }
    }
}
