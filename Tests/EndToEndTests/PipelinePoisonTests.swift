import Emulator
import Foundation
import Kafka
import Pipeline
import Testing

/// Bad input of every kind: a rejected outcome naming the field, the bytes dead-lettered as read,
/// and the valid records around them unharmed.
@Suite("Pipeline end to end: poison records", .serialized)
struct PipelinePoisonTests {
    @Test("every kind of bad record is rejected and dead-lettered byte for byte; the valid ones around it complete")
    func poison() async throws {
        // Calls are slow enough that the first 'dup' is still in flight when its twin, ten records
        // later, arrives: 2 s, not 300 ms, because a loaded CI machine once took longer than
        // 300 ms between the two, and the twin then completed as a request of its own.
        try await withPipelineFixture(partitions: 1, faults: FaultPlan(latencyMilliseconds: 2_000)) { fixture in
            let tokens = fixture.seedTokens(20, prefix: "poison")
            func valid(_ id: String, _ slice: Range<Int>) -> (String, [UInt8]) {
                ("k", Array(PipelineRequest(id: id, op: .topicsSubscribe, target: .topic("p"), items: Array(tokens[slice])).jsonBody()))
            }
            let oversize = #"{"id":"big","op":"topics.subscribe","topic":"p","tokens":["\#(String(repeating: "x", count: 5_000))"]}"#
            // (value, readable id, field the reason names)
            let poison: [(String, String?, String?)] = [
                ("{not json", nil, nil),
                (#"{"id":"unknown-op","op":"topics.explode","topic":"p","tokens":["a"]}"#, "unknown-op", "op"),
                (#"{"id":"missing","op":"topics.subscribe","tokens":["a"]}"#, "missing", "topic"),
                (#"{"id":"mistyped","op":"apns.import","application":"a","sandbox":"yes","apnsTokens":["a"]}"#, "mistyped", "sandbox"),
                (#"{"id":"empty","op":"topics.subscribe","topic":"p","tokens":[]}"#, "empty", "tokens"),
                (#"{"id":"not-string","op":"topics.subscribe","topic":"p","tokens":["a", 7]}"#, "not-string", "tokens[1]"),
                (#"{"id":"empty-string","op":"installations.delete","installations":[""]}"#, "empty-string", "installations[0]"),
                (#"{"id":"bad-topic","op":"topics.subscribe","topic":"no spaces!","tokens":["a"]}"#, "bad-topic", "topic"),
                (oversize, nil, nil),
                (#"{"id":"dup","op":"topics.subscribe","topic":"p","tokens":["poison-19"]}"#, "dup", "id"),
            ]
            var records = [valid("before", 0..<5), valid("dup", 5..<10)]
            records += poison.map { ("k", Array($0.0.utf8)) }
            records.append(valid("after", 10..<15))
            let worker = try fixture.startWorker(
                fixture.pipeline {
                    $0.maxRecordBytes = 4_096
                    $0.linger = .milliseconds(5)
                })
            let reports = try await fixture.produce(records)
            let noIDs = poison.indices.filter { poison[$0].1 == nil }.map { index in
                RecordPosition(reports[index + 2]).description
            }
            let ids = ["before", "after"] + poison.compactMap(\.1).filter { $0 != "dup" } + noIDs
            _ = try await fixture.waitForOutcomes(ids + ["dup"])
            let letters = try await fixture.waitForDeadLetters(poison.count)
            // Both outcomes of 'dup': the original's and the twin's rejection.
            try await fixture.waitForRead({ _ in "both outcomes of 'dup'" }) { $0.outcomes.count { $0.requestID == "dup" } >= 2 }
            await worker.stop()

            let outcomes = fixture.outcomes
            for id in ["before", "after"] { #expect(outcomes.first { $0.requestID == id }?.status == .succeeded) }
            #expect(fixture.backend.subscribers(of: "p") == Array(tokens[0..<15]).sorted())
            for (value, id, field) in poison {
                let outcomeID = id ?? noIDs[poison.filter { $0.1 == nil }.firstIndex { $0.0 == value }!]
                let rejected = try #require(outcomes.first { $0.requestID == outcomeID && $0.status == .rejected }, "no rejection for \(outcomeID)")
                if let field { #expect(rejected.reason?.hasPrefix(field + ":") == true, "\(rejected.reason ?? "")") }
                let letter = try #require(letters.first { $0.value == Array(value.utf8) }, "\(outcomeID) not dead-lettered byte for byte")
                // A valid request whose id was busy is kept replayable (issue 17); the others are undecodable.
                let kind: DeadLetter.Kind = id == "dup" ? .duplicate : .undecodable
                #expect(letter.headers.string(DeadLetterHeader.kind) == kind.rawValue)
                #expect((DeadLetter(letter).replay() != nil) == (id == "dup"), "only the duplicate can be replayed as it is")
                #expect(letter.headers.string(DeadLetterHeader.error) == rejected.reason)
            }
            let dup = outcomes.filter { $0.requestID == "dup" }
            #expect(Set(dup.map(\.status)) == [.succeeded, .rejected])
            #expect(dup.first { $0.status == .rejected }?.reason?.contains("still in flight") == true)
            #expect(outcomes.first { $0.requestID == noIDs[1] }?.reason?.contains("exceeds the limit of 4096 bytes") == true)
        }
    }

    /// Produces `records` to partition `partition` of the request topic, in order.
    private func produce(_ fixture: PipelineFixture, _ records: [(key: String, value: [UInt8])], partition: Int32) async throws -> [KafkaDeliveryReport] {
        let producer = try KafkaProducer(configuration: fixture.kafka.configuration())
        var reports: [KafkaDeliveryReport] = []
        for record in records {
            reports.append(try await producer.send(topic: fixture.requestTopic, key: Array(record.key.utf8), value: record.value, partition: partition))
        }
        await producer.close()
        return reports
    }

    @Test(
        "issue 31, finding 4, as tried from outside: a 600,000-byte id and a 700 kB grapheme, then a valid request, through iidbatch run: all settled, the process runs on"
    )
    func overlongValuesThroughRun() async throws {
        try await withPipelineFixture(partitions: 1) { fixture in
            let folder = try RunFolder(fixture, name: "poison-run")
            defer { folder.remove() }
            let pipeline = try folder.pipeline(fixture, group: "poison-run", "batching: { max-items: 100, linger: 10ms }")
            let tokens = fixture.seedTokens(3, prefix: "poison-run")
            let longID = String(repeating: "a", count: 600_000)
            // 700,001 bytes of characters of an 'a' and 30 combining acute accents, the most
            // stream-safe text holds; and a value past that limit, refused as JSON.
            let grapheme = String(repeating: "a" + String(repeating: "\u{301}", count: 30), count: 11_475) + String(repeating: "a", count: 26)
            let marks = "a" + String(repeating: "\u{301}\u{316}", count: 200_000)
            let records: [(key: String, value: [UInt8])] = [
                ("p", Array(#"{"id":"\#(longID)","op":"topics.subscribe","topic":"p","tokens":["\#(tokens[0])"]}"#.utf8)),
                ("p", Array(#"{"id":"grapheme","op":"topics.subscribe","topic":"\#(grapheme)","tokens":["\#(tokens[0])"]}"#.utf8)),
                ("p", Array(#"{"id":"marks","op":"topics.subscribe","topic":"\#(marks)","tokens":["\#(tokens[0])"]}"#.utf8)),
                ("p", Array(PipelineRequest(id: "after-poison", op: .topicsSubscribe, target: .topic("p"), items: Array(tokens[1...2])).jsonBody())),
            ]
            let reports = try await produce(fixture, records, partition: 0)
            let run = try await ChildProcess(try Programs.iidbatch, folder.runArguments(fixture, pipeline: pipeline, ["--log-level", "info"]))
            let read = try await fixture.waitForRead({
                "4 outcomes and 3 dead letters (\($0.outcomes.count), \($0.deadLetters.count) read); run said:\n\(run.text.prefix(4_000))"
            }) {
                $0.outcomes.count >= 4 && $0.deadLetters.count >= 3
            }
            run.interrupt()
            let status = try await run.waitForExit()
            #expect(status == 0, "the worker never stopped itself; it said:\n\(run.text.prefix(4_000))")
            #expect(!run.text.contains("stopping the worker"), "\(run.text.prefix(4_000))")
            let longest = run.text.split(separator: "\n").map(\.utf8.count).max() ?? 0
            #expect(longest < 4_096, "no log line carries a whole value: the longest has \(longest) bytes")

            let outcomes = read.outcomes
            #expect(outcomes.first { $0.requestID == "after-poison" }?.status == .succeeded)
            #expect(fixture.backend.subscribers(of: "p") == Array(tokens[1...2]).sorted(), "neither poison record subscribed anything")
            let long = try #require(outcomes.first { $0.requestID.hasPrefix("aaaa") }, "a rejection for the long id")
            #expect(long.status == .rejected)
            #expect(long.requestID == RequestID.shortForm(longID) && long.requestID.utf8.count <= 138, "named by its first bytes and SHA-256")
            #expect(long.reason?.hasPrefix("id: has 600000 bytes, more than the limit of 512") == true, "\(long.reason?.prefix(300) ?? "")")
            let bad = try #require(outcomes.first { $0.requestID == "grapheme" })
            // Compared as bytes: "'a" and the accents after it are one character.
            #expect(bad.status == .rejected && bad.reason?.utf8.starts(with: "topic: 'a\u{301}".utf8) == true)
            let unsafe = try #require(
                outcomes.first { $0.requestID == "\(fixture.requestTopic)/0/\(reports[2].offset)" }, "the stream-unsafe record, named by its place")
            #expect(unsafe.status == .rejected && unsafe.reason?.contains("stream-safe") == true, "\(unsafe.reason?.prefix(300) ?? "")")
            #expect(bad.reason?.contains("(700001 bytes) is not a topic name") == true, "\(bad.reason ?? "")")
            #expect((bad.reason?.utf8.count ?? .max) <= RequestRejection.maxReasonBytes + 100, "the reason quotes the value cut by bytes")
            for (index, id) in [(0, long.requestID), (1, "grapheme")] {
                let letter = try #require(read.deadLetters.first { $0.headers.string(DeadLetterHeader.requestID) == id }, "a dead letter of \(id.prefix(80))")
                #expect(letter.value == records[index].value, "fits whole: dead-lettered byte for byte")
                #expect(letter.headers.string(DeadLetterHeader.originalOffset) == "\(reports[index].offset)")
                #expect(DeadLetterHeader.bytes(of: letter.headers) <= DeadLetterHeader.maxBytes)
            }
        }
    }

    @Test("a keyless record the dead-letter topic refuses without a key (a compacted topic) is dead-lettered keyed by its position; the worker goes on")
    func keylessDeadLetterOnACompactedTopic() async throws {
        try await withPipelineFixture(partitions: 1) { fixture in
            let tokens = fixture.seedTokens(2, prefix: "keyless")
            let producer = try KafkaProducer(configuration: fixture.kafka.configuration())
            let report = try await producer.send(topic: fixture.requestTopic, key: nil, value: Array("{not json".utf8))
            await producer.close()
            let position = RecordPosition(report).description
            let after = PipelineRequest(id: "keyless-after", op: .topicsSubscribe, target: .topic("k"), items: tokens)
            try await fixture.submit([after])
            // The worker's first record produced is the dead letter: refused as a compacted topic
            // refuses a record without a key.
            fixture.kafka.injectRequestErrors(.produce, [.invalidRecord])
            let worker = try fixture.startWorker(fixture.pipeline { $0.linger = .milliseconds(5) })
            let outcomes = try await fixture.waitForOutcomes([position, after.id], timeout: .seconds(90))
            let letters = try await fixture.waitForDeadLetters(1)
            let failure = await worker.worker.failure
            await worker.stop()
            fixture.kafka.clearRequestErrors(.produce)
            #expect(failure == nil, "no record stops the worker: \(String(describing: failure))")
            #expect(outcomes[position]?.status == .rejected && outcomes[after.id]?.status == .succeeded)
            let letter = try #require(letters.first)
            #expect(letter.key == Array(position.utf8), "keyed by the original position")
            #expect(letter.value == Array("{not json".utf8), "the bytes as read")
            #expect(DeadLetter(letter).originalPosition?.description == position)
        }
    }

    @Test("a record too large to dead-letter whole is dead-lettered as a stub with its coordinates and reason; the record after it completes")
    func deadLetterStub() async throws {
        try await withPipelineFixture(partitions: 1) { fixture in
            let tokens = fixture.seedTokens(2, prefix: "stub")
            let worker = try fixture.startWorker(fixture.pipeline { $0.maxRecordBytes = 4_096 })
            // 100 kB: rejected unread, and larger than a dead letter of this pipeline may be.
            let huge = Array(#"{"id":"huge","op":"topics.subscribe","topic":"p","tokens":["\#(String(repeating: "x", count: 100_000))"]}"#.utf8)
            let valid = PipelineRequest(id: "after-stub", op: .topicsSubscribe, target: .topic("p"), items: tokens)
            let reports = try await produce(fixture, [("p", huge), ("p", Array(valid.jsonBody()))], partition: 0)
            let position = RecordPosition(reports[0]).description
            let outcomes = try await fixture.waitForOutcomes([position, valid.id])
            let letters = try await fixture.waitForDeadLetters(1)
            #expect(await worker.worker.failure == nil)
            await worker.stop()

            #expect(outcomes[valid.id]?.status == .succeeded)
            let rejected = try #require(outcomes[position])
            #expect(rejected.status == .rejected && rejected.reason?.contains("exceeds the limit of 4096 bytes") == true)
            let stub = try #require(letters.first)
            #expect(stub.value == nil, "the value is left out")
            #expect(stub.key == Array("p".utf8))
            #expect(stub.headers.string(DeadLetterHeader.originalTopic) == fixture.requestTopic)
            #expect(stub.headers.string(DeadLetterHeader.originalPartition) == "0")
            #expect(stub.headers.string(DeadLetterHeader.originalOffset) == "\(reports[0].offset)")
            #expect(stub.headers.string(DeadLetterHeader.error) == rejected.reason)
            #expect(stub.headers.string(DeadLetterHeader.omittedBytes) == "\(huge.count)")
            #expect(DeadLetter(stub).omittedBytes == huge.count && DeadLetter(stub).replay() == nil)
        }
    }

    @Test("issue 31, finding 7: records padded far past their items are held by bytes, not items, and all complete")
    func paddedRecordsHeldByBytes() async throws {
        // Calls take a second: the records arrive far faster than they complete.
        try await withPipelineFixture(partitions: 2, faults: FaultPlan(latencyMilliseconds: 1_000)) { fixture in
            let bound = 1 << 20
            let padding = String(repeating: " ", count: 256 << 10)
            func fid(_ n: Int) -> String { "fid-padded-\(n + 1_000)" }
            func record(_ n: Int) -> (key: String, value: [UInt8]) {
                ("subject-\(n)", Array(#"{"id":"padded-\#(n)","op":"installations.delete","installations":["\#(fid(n))"]\#(padding)}"#.utf8))
            }
            fixture.backend.seed(SeedRequest(installations: (0..<24).map(fid)))
            let worker = try fixture.startWorker(
                fixture.pipeline {
                    $0.maxInFlightBytes = bound
                    $0.concurrency = 32
                })
            // 24 one-item records of 256 kB, 12 a partition (3 MiB: within the embedded broker's retention).
            for partition in Int32(0)..<2 {
                _ = try await produce(fixture, (0..<12).map { record(Int(partition) * 12 + $0) }, partition: partition)
            }
            let outcomes = try await fixture.waitForOutcomes((0..<24).map { "padded-\($0)" })
            let statistics = await worker.worker.currentStatistics()
            await worker.stop()

            #expect(outcomes.values.allSatisfy { $0.status == .succeeded }, "\(outcomes.values.map { "\($0.status) \($0.counts)" })")
            let recordBytes = record(10).value.count + "subject-10".utf8.count
            // The bound is reached by the record taken last: it may pass by one record.
            #expect(statistics.peakItemsInFlight <= bound / recordBytes + 1, "at most 5 records held at once, not all 24: \(statistics.peakItemsInFlight)")
            #expect(statistics.peakBytesInFlight <= bound + recordBytes, "\(statistics.peakBytesInFlight) bytes held at the peak")
        }
    }
}
