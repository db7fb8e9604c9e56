import Foundation
import Testing

@Suite("iidbatch broker and bench kafka, as a user runs them", .serialized)
struct BrokerCommandTests {
    @Test("kcat lists, produces to and consumes from `iidbatch broker`; Ctrl-C stops it cleanly")
    func brokerWithKcat() async throws {
        let port = Int.random(in: TestPorts.broker)
        let broker = try await ChildProcess(
            try Programs.iidbatch, ["broker", "--brokers", "3", "--port", "\(port)", "--topic", "requests:3", "--topic", "outcomes"])
        try await broker.waitFor("Ctrl-C stops the cluster.")
        let bootstrap = "127.0.0.1:\(port)"
        #expect(broker.text.contains("bootstrap servers: \(bootstrap)"))

        // docs/local.md's command, verbatim.
        let listing = try await ChildProcess.run(try Programs.kcat, ["-L", "-b", bootstrap])
        #expect(listing.status == 0)
        #expect(listing.output.contains(" 3 brokers:"), "\(listing.output)")
        #expect(listing.output.contains("topic \"requests\" with 3 partitions"), "\(listing.output)")
        #expect(listing.output.contains("topic \"outcomes\" with 1 partitions"), "\(listing.output)")

        let lines = (0..<30).map { "key\($0):value-\($0)" }.joined(separator: "\n") + "\n"
        let produced = try await ChildProcess.run(try Programs.kcat, ["-P", "-b", bootstrap, "-t", "requests", "-K:"], stdin: Data(lines.utf8))
        #expect(produced.status == 0, "\(produced.output)")
        let consumed = try await ChildProcess.run(try Programs.kcat, ["-C", "-b", bootstrap, "-t", "requests", "-e", "-q", "-f", "%k=%s\\n"])
        #expect(consumed.status == 0, "\(consumed.output)")
        let got = Set(consumed.output.split(separator: "\n").map(String.init))
        #expect(got == Set((0..<30).map { "key\($0)=value-\($0)" }))

        broker.interrupt()
        #expect(try await broker.waitForExit() == 0)
        #expect(broker.text.contains("stopped on SIGINT"))
    }

    @Test("a bad --topic is refused with the offending text")
    func badTopic() async throws {
        let result = try await ChildProcess.run(try Programs.iidbatch, ["broker", "--topic", "orders:zero"])
        #expect(result.status != 0)
        #expect(result.output.contains("orders:zero"))
    }

    @Test("bench kafka prints produce and consume figures")
    func benchKafka() async throws {
        let result = try await ChildProcess.run(try Programs.iidbatch, ["bench", "kafka", "--records", "3000", "--size", "100"], seconds: 180)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("broker: embedded librdkafka"))
        let figures = result.output.split(separator: "\n").filter { $0.hasPrefix("produce: 3000 records") || $0.hasPrefix("consume: 3000 records") }
        #expect(figures.count == 2, "\(result.output)")
        #expect(figures.allSatisfy { $0.contains("records/s") && $0.contains("MB/s") })
    }
}
