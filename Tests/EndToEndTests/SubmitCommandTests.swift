import Foundation
import InstanceAPI
import Kafka
import Pipeline
import Testing

/// `iidbatch submit` against the embedded cluster: records and items as the input says, stable
/// ids, bad lines by number, and the progress display.
@Suite("iidbatch submit, as a user runs it", .serialized)
struct SubmitCommandTests {
    /// 25,000 good tokens with two bad lines and a blank one in between; returns the tokens.
    private func writeTokens(to file: URL) throws -> [String] {
        let tokens = (1...25_000).map { "tok-\(NumberText.digits($0, width: 6))" }
        var lines = tokens
        lines.insert("bad token", at: 100)  // line 101
        lines.insert("", at: 5_000)  // line 5001
        lines.insert("tab\there", at: 12_345)  // line 12346
        try (lines.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        return tokens
    }

    @Test("25,000 tokens make 25 records of 1,000 in order, keyed by topic; bad lines are reported by number; a re-run gives the same ids")
    func submitTwentyFiveThousand() async throws {
        let kafka = try EmbeddedKafka(brokers: 1)
        try kafka.createTopic("requests", partitions: 4)
        try kafka.createTopicIfAbsent(BatchTopic.embeddedSpec)
        let folder = try OperatorCommand.temporaryFolder("submit")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("tokens.txt")
        let tokens = try writeTokens(to: file)
        let arguments = ["submit", "--op", "topics.subscribe", "--topic", "movies", "--request-topic", "requests", file.path]

        let first = try await OperatorCommand.run(arguments, brokers: kafka.bootstrapServers)
        #expect(first.status == 0, "\(first.output)")
        #expect(
            first.output.contains("tokens.txt: line 101: 'bad token' must not contain whitespace, a control or format character, or '/'"), "\(first.output)")
        #expect(first.output.contains("tokens.txt: line 12346: "), "\(first.output)")
        #expect(first.output.contains("25000 items, 2 bad line(s) skipped, 1 blank line(s) skipped"), "\(first.output)")
        #expect(first.output.contains("submitted 25 record(s), 25000 items, to requests"), "\(first.output)")
        // Not a terminal: plain progress lines, no bar redrawn in place.
        #expect(first.output.contains("submit: 25000/25000 items (100%)"), "\(first.output)")
        #expect(!first.output.contains("\u{1B}[K") && !first.output.contains("\r"))

        // The batch's manifest says how many lines were skipped: its receipt names them.
        let manifests = try await OperatorCommand.records(kafka, BatchTopic.defaultName).map { try BatchManifest.parse($0.value ?? []) }
        #expect(!manifests.isEmpty && manifests.allSatisfy { $0.skippedLines == 2 }, "\(manifests)")
        let records = try await OperatorCommand.requests(kafka, "requests")
        #expect(records.count == 25)
        #expect(records.allSatisfy { $0.record.key == Array("movies".utf8) })
        #expect(Set(records.map(\.record.partition)).count == 1, "one key, one partition: the topic's changes keep their order")
        let requests = records.map(\.request)
        #expect(requests.allSatisfy { $0.op == .topicsSubscribe && $0.target == .topic("movies") && $0.items.count == 1_000 })
        #expect(requests.flatMap(\.items) == tokens, "every good line, once, in file order")
        let ids = requests.map(\.id)
        #expect(Set(ids).count == 25)
        #expect(ids.first?.hasSuffix("-000001") == true && ids.last?.hasSuffix("-000025") == true)
        let idRange = try #require(first.output.split(separator: "\n").first { $0.hasPrefix("submitted ") }).split(separator: ": ids ").last

        let second = try await OperatorCommand.run(arguments, brokers: kafka.bootstrapServers)
        #expect(second.status == 0, "\(second.output)")
        #expect(second.output.split(separator: "\n").first { $0.hasPrefix("submitted ") }?.split(separator: ": ids ").last == idRange)
        let again = try await OperatorCommand.requests(kafka, "requests").map(\.request)
        #expect(again.count == 50)
        #expect(again.suffix(25).map(\.id) == ids, "the same input gives the same ids")
        #expect(again.suffix(25).map(\.items) == requests.map(\.items))
    }

    @Test("--strict refuses input with bad lines and produces nothing")
    func strict() async throws {
        let kafka = try EmbeddedKafka(brokers: 1)
        try kafka.createTopic("requests", partitions: 1)
        let folder = try OperatorCommand.temporaryFolder("strict")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("tokens.txt")
        _ = try writeTokens(to: file)
        let result = try await OperatorCommand.run(
            ["submit", "--op", "topics.unsubscribe", "--topic", "movies", "--request-topic", "requests", "--strict", file.path], brokers: kafka.bootstrapServers
        )
        #expect(result.status != 0)
        #expect(result.output.contains("line 101:") && result.output.contains("line 12346:"), "\(result.output)")
        #expect(result.output.contains("--strict: 2 bad line(s); nothing was submitted"), "\(result.output)")
        #expect(try await OperatorCommand.records(kafka, "requests").isEmpty)
    }

    @Test("a record the pipeline's worker would reject (past its max-record-bytes) stops the submit, naming it, before anything is produced")
    func recordTheWorkerRejects() async throws {
        let kafka = try EmbeddedKafka(brokers: 1)
        try kafka.createTopic("small-requests", partitions: 1)
        let folder = try OperatorCommand.temporaryFolder("small")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("pipelines"), withIntermediateDirectories: true)
        try "request-topic: small-requests\nops: [topics.subscribe]\nmax-record-bytes: 4096\n".write(
            to: folder.appendingPathComponent("pipelines/small.yaml"), atomically: true, encoding: .utf8)
        let file = folder.appendingPathComponent("tokens.txt")
        try ((1...100).map { "tok-\(NumberText.digits($0, width: 160))" }.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        let pipelines = folder.appendingPathComponent("pipelines").path
        let refused = try await OperatorCommand.run(
            ["submit", "--op", "topics.subscribe", "--topic", "movies", "--request-topic", "small-requests", "--pipelines", pipelines, file.path],
            brokers: kafka.bootstrapServers)
        #expect(refused.status == 65, "\(refused.output)")
        #expect(refused.output.contains("record 1 (") && refused.output.contains("exceeds the limit of 4096 bytes"), "\(refused.output)")
        #expect(try await OperatorCommand.records(kafka, "small-requests").isEmpty)
        // Records that fit go.
        let fits = try await OperatorCommand.run(
            [
                "submit", "--op", "topics.subscribe", "--topic", "movies", "--request-topic", "small-requests", "--pipelines", pipelines, "--record-size", "20",
                file.path,
            ], brokers: kafka.bootstrapServers)
        #expect(fits.status == 0, "\(fits.output)")
        #expect(try await OperatorCommand.records(kafka, "small-requests").count == 5)
    }

    @Test("stdin, CSV columns and the per-op target: deletions keyed by subject, imports by application")
    func stdinAndTargets() async throws {
        let kafka = try EmbeddedKafka(brokers: 1)
        try kafka.createTopic("deletions", partitions: 2)
        try kafka.createTopic("imports", partitions: 2)
        let fids = (1...250).map { "fid-user-7-\(NumberText.digits($0, width: 6))" }
        let csv = "user,fid\n" + fids.map { "user-7,\($0)" }.joined(separator: "\n") + "\n"
        let deleted = try await OperatorCommand.run(
            ["submit", "--op", "installations.delete", "--subject", "user-7", "--format", "csv", "--column", "fid", "--request-topic", "deletions", "-"],
            brokers: kafka.bootstrapServers, stdin: Data(csv.utf8))
        #expect(deleted.status == 0, "\(deleted.output)")
        let deletions = try await OperatorCommand.requests(kafka, "deletions")
        #expect(deletions.map(\.request.items.count) == [100, 100, 50])
        #expect(deletions.allSatisfy { $0.record.key == Array("user-7".utf8) && $0.request.target == .subject("user-7") })
        #expect(deletions.flatMap(\.request.items) == fids)

        let apns = (0..<120).map { NumberText.digits($0 + 1, radix: 16, width: 64) }
        let imported = try await OperatorCommand.run(
            ["submit", "--op", "apns.import", "--application", "com.example.ios", "--sandbox", "--request-topic", "imports", "-"],
            brokers: kafka.bootstrapServers, stdin: Data((apns.joined(separator: "\n") + "\nnot-hex\n").utf8))
        #expect(imported.status == 0, "\(imported.output)")
        #expect(imported.output.contains("line 121: 'not-hex' is not an APNs device token"), "\(imported.output)")
        let imports = try await OperatorCommand.requests(kafka, "imports")
        #expect(imports.map(\.request.items.count) == [100, 20])
        #expect(imports.allSatisfy { $0.request.target == .apns(application: "com.example.ios", sandbox: true) })

        let missing = try await OperatorCommand.run(["submit", "--op", "apns.import", "-"], brokers: kafka.bootstrapServers, stdin: Data(apns[0].utf8))
        #expect(missing.status != 0 && missing.output.contains("--application"), "\(missing.output)")
        let unknown = try await OperatorCommand.run(["submit", "--op", "topics.frobnicate", "-"], brokers: kafka.bootstrapServers, stdin: Data())
        #expect(unknown.status != 0 && unknown.output.contains("unknown op 'topics.frobnicate'"), "\(unknown.output)")
    }

    @Test("on a terminal the progress is a bar redrawn in place, with items/s and ETA")
    func progressBarOnATerminal() async throws {
        let kafka = try EmbeddedKafka(brokers: 1)
        try kafka.createTopic("requests", partitions: 1)
        let folder = try OperatorCommand.temporaryFolder("tty")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("tokens.txt")
        _ = try writeTokens(to: file)
        // script(1) runs the command on a pseudo-terminal, as a person at a terminal would.
        let command = [
            try Programs.iidbatch.path, "submit", "--op", "topics.subscribe", "--topic", "movies", "--request-topic", "requests",
            "--brokers", kafka.bootstrapServers, file.path,
        ].joined(separator: " ")
        let result = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/script"), ["-qec", command, "/dev/null"], seconds: 120)
        #expect(result.status == 0, "\(result.output)")
        let bar = try #require(result.output.components(separatedBy: "\r").last { $0.hasPrefix("submit [") }, "\(result.output)")
        #expect(bar.hasPrefix("submit [##############################] 100%  25000/25000 items  "), "\(bar)")
        #expect(bar.contains(" items/s  ETA 0s\u{1B}[K"), "\(bar)")
        #expect(!result.output.contains("submit: 25000/25000"), "no plain lines on a terminal")
    }
}
