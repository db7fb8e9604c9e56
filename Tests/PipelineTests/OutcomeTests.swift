import Foundation
import InstanceAPI
import Pipeline
import Testing
import WireJSON

@Suite("Outcomes on the wire")
struct OutcomeTests {
    @Test("status: all successes succeeded, none failed, a mix partial; ALREADY_ABSENT counts as success")
    func status() {
        #expect(OutcomeStatus.of([.ok, .alreadyAbsent]) == .succeeded)
        #expect(OutcomeStatus.of([.notFound, .internal]) == .failed)
        #expect(OutcomeStatus.of([.ok, .tooManyTopics]) == .partial)
        #expect(OutcomeStatus.of([ResultCode]()) == .failed)
    }

    @Test("an outcome round-trips through its wire form, codes and millisecond timings intact")
    func roundTrip() throws {
        let received = Date(timeIntervalSince1970: 1_800_000_000.125)
        let outcome = Outcome(
            requestID: "r-1", op: .topicsSubscribe, target: ["topic": "movies"], status: .partial,
            counts: ["OK": 2, "NOT_FOUND": 1, "UNKNOWN(NEW_THING)": 1],
            failedItems: [
                FailedItem(index: 1, item: "t1", code: .notFound, attempts: 1, message: "NOT_FOUND"),
                FailedItem(index: 3, item: "t3", code: .unknown("NEW_THING"), attempts: 1, message: nil),
            ],
            backendCalls: 1, receivedAt: received, completedAt: received.addingTimeInterval(0.25))
        let data = try Outcome.encoder().encode(outcome)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""requestId":"r-1""#) && text.contains(#""code":"UNKNOWN(NEW_THING)""#))
        #expect(text.contains("2027-01-15T08:00:00.125Z"))
        let back = try Outcome.decoder().decode(Outcome.self, from: data)
        #expect(back.failedItems == outcome.failedItems && back.counts == outcome.counts && back.status == .partial)
        #expect(abs(back.receivedAt.timeIntervalSince(received)) < 0.001)
        #expect(back.failedItems[0].retryable == false)
        #expect(FailedItem(index: 0, item: "x", code: .internal, attempts: 5, message: nil).retryable)
    }

    @Test(
        "the outcome size bound holds for the worst outcome a request can have",
        arguments: [
            RequestOp.installationsDelete, .topicsSubscribe, .apnsImport, .groupsExport, .instancesInfo, .groupsCreate, .groupsAdd,
        ])
    func sizeBoundHolds(op: RequestOp) throws {
        // Items that need escaping, every item failed on a distinct long unknown code with a long
        // message, a receipt line and an import each: worse than anything a backend answers.
        let items = (0..<300).map { "id/\u{1}\"\\-\($0)-" + String(repeating: "é", count: 20) }
        let target: RequestTarget =
            switch op {
            case .installationsDelete: .subject("subject/\"x\"")
            case .apnsImport: .apns(application: "com.example/app", sandbox: true)
            case .groupsExport: .export(byKey: false)
            case .instancesInfo: .info(details: true)
            case .groupsCreate: .group(name: "group/\"x\"", key: nil)
            // A request's own key of any length: the outcome echoes it when no answer carried one.
            case .groupsAdd: .group(name: "group/\"x\"", key: String(repeating: "k/\"", count: 100_000))
            default: .topic("movies")
            }
        let request = PipelineRequest(
            id: "worst/\"case\"", op: op, target: target, items: items, replayOf: "orig/\"inal\"", priorAttempts: 999_999,
            batch: String(repeating: "b", count: BatchName.maxBytes))
        let now = Date()
        // Distinct unknown codes (one count key each) of the characters JSON writes longest: a
        // control character takes six bytes (`\u0001`), a backslash two.
        let codes = items.indices.map { ResultCode(rawValue: "UNKNOWN(\($0)" + String(repeating: $0.isMultiple(of: 2) ? "\u{1}" : "\\", count: 200) + ")") }
        let outcome = Outcome(
            requestID: request.id, op: op, target: target.outcomeFields, status: .failed,
            counts: Dictionary(codes.map { ($0.rawValue, 1) }, uniquingKeysWith: +),
            failedItems: items.indices.map {
                FailedItem(index: $0, item: items[$0], code: codes[$0], attempts: 999_999_999, message: String(repeating: "\"/", count: 5_000))
            },
            imports: op == .apnsImport
                ? Dictionary(uniqueKeysWithValues: items.map { ($0, String(repeating: "r", count: APILimits.answeredTokenBytes)) }) : nil,
            receipt: op == .installationsDelete ? items.indices.map { ItemReceipt(item: items[$0], code: codes[$0], at: now) } : nil,
            notificationKey: op == .groupsCreate
                ? String(repeating: "k", count: APILimits.answeredTokenBytes) : op == .groupsAdd ? String(repeating: "k/\"", count: 100_000) : nil,
            // Topic lists are not bounded (here 20 topics of 900 characters each): they are left out.
            topics: op == .instancesInfo
                ? Dictionary(uniqueKeysWithValues: items.map { ($0, (0..<20).map { "\($0)" + String(repeating: "%", count: 900) }) }) : nil,
            groupMembers: op == .groupsExport
                ? Dictionary(
                    uniqueKeysWithValues: items.map { item in
                        (item, (0..<20).map { "\($0)" + String(repeating: "t", count: APILimits.answeredTokenBytes - 2) })
                    }) : nil,
            reason: nil, replayOf: request.replayOf,
            record: RecordPosition(topic: String(repeating: "t", count: RecordPosition.maxTopicBytes), partition: .max, offset: .max),
            batch: request.batch, backendCalls: 999_999_999, receivedAt: now, completedAt: now)
        let bound = OutcomeSizeBound.bytes(of: request)
        let bytes = outcome.wireBytes(limit: bound)
        #expect(bytes.count <= bound, "\(bytes.count) bytes written, bound \(bound)")
        #expect(outcome.wireBytes(limit: .max).count > bound, "only the messages were left out to fit")
        let decoded = try Outcome.decoder().decode(Outcome.self, from: Data(bytes))
        #expect(decoded.failedItems.map(\.code) == codes && decoded.failedItems.allSatisfy { $0.message == nil })
        if op == .instancesInfo { #expect(decoded.topicsOmitted == items.sorted() && decoded.topics == [:]) }
        if op == .groupsExport { #expect(decoded.groupMembers == outcome.groupMembers, "group members are bounded and kept") }
    }

    @Test("the bound read from a record's size is never below the bound read item by item, whatever the items' escapes")
    func recordSizeBoundHolds() throws {
        // `\n` and `\t` take 2 bytes in a record and count 6 in the bound, `/` 1 and 2: the worst
        // growth there is. Written by hand with the shortest escapes, not by our writer.
        let worst = [#"\n\n\n"#, "/", #"a/\t/"#, #"\u0001"#, "plain-token", #"\"\\"#]
        for item in worst {
            let record = Array(
                "{\"id\":\"r\",\"op\":\"topics.subscribe\",\"topic\":\"t\",\"tokens\":[\(Array(repeating: "\"\(item)\"", count: 500).joined(separator: ","))]}"
                    .utf8)
            let request = try RequestDecoder().decode(record).get()
            let exact = OutcomeSizeBound.bytes(of: request)
            let quick = OutcomeSizeBound.bytes(of: request, recordBytes: record.count)
            #expect(quick >= exact, "items \(item): \(quick) from the record's size, \(exact) item by item")
        }
    }

    @Test("the written wire form is byte for byte what the Codable encoder writes, for every kind of outcome")
    func writerMatchesEncoder() throws {
        let now = Date(timeIntervalSince1970: 1_795_413_917.842_9)
        let outcomes = [
            Outcome(
                requestID: "r/\"1\"", op: .topicsSubscribe, target: ["topic": "movies"], status: .partial,
                counts: ["OK": 998, "NOT_FOUND": 1, "UNKNOWN(NEW)": 1],
                failedItems: [
                    FailedItem(index: 1, item: "t1", code: .notFound, attempts: 1, message: "NOT_FOUND: \n gone"),
                    FailedItem(index: 3, item: "t\u{1}3", code: .unknown("NEW"), attempts: 12, message: nil),
                ],
                replayOf: "orig", record: RecordPosition(topic: "requests.v2", partition: 3, offset: 1_234_567_890_123), backendCalls: 3,
                receivedAt: now, completedAt: now.addingTimeInterval(0.2506)),
            Outcome(
                requestID: "d-1", op: .installationsDelete, target: ["subject": "user-é"], status: .succeeded, counts: ["OK": 2], failedItems: [],
                receipt: [
                    ItemReceipt(item: "fid-a", code: .ok, at: now), ItemReceipt(item: "fid-b", code: .alreadyAbsent, at: now.addingTimeInterval(-86_400.5)),
                ],
                backendCalls: 2, receivedAt: now, completedAt: now),
            Outcome(
                requestID: "i-1", op: .apnsImport, target: ["application": "com.example.App", "sandbox": "true"], status: .succeeded,
                counts: ["OK": 2], failedItems: [], imports: ["AB12": "reg:1", "ab12": "reg/2"], backendCalls: 1, receivedAt: now, completedAt: now),
            Outcome(
                requestID: "g-1", op: .groupsExport, target: [:], status: .succeeded, counts: ["OK": 1], failedItems: [], notificationKey: "APA91-key",
                topics: ["tok": ["b", "a"]], groupMembers: ["family": ["t1", "t2"]], backendCalls: 2, receivedAt: now, completedAt: now),
            Outcome(
                requestID: "partition 3 offset 7", op: nil, target: [:], status: .rejected, counts: [:], failedItems: [],
                reason: "op: unknown op 'x'", backendCalls: 0, receivedAt: now, completedAt: now),
        ]
        for outcome in outcomes {
            #expect(
                String(decoding: outcome.wireBytes(limit: .max), as: UTF8.self) == String(decoding: try Outcome.encoder().encode(outcome), as: UTF8.self))
        }
        let placed = try Outcome.decoder().decode(Outcome.self, from: Data(outcomes[0].wireBytes(limit: .max)))
        #expect(placed.record == outcomes[0].record && placed.record?.description == "requests.v2/3/1234567890123")
        // A record that is not a position is not a worker's outcome: tools read it as none.
        let forged = String(decoding: outcomes[0].wireBytes(limit: .max), as: UTF8.self).replacingOccurrences(of: "1234567890123", with: "123x")
        #expect(Outcome.read(Array(forged.utf8), using: Outcome.decoder()) == nil)
        var omitted = outcomes[3]
        omitted.topicsOmitted = ["tok"]
        omitted.topics = [:]
        #expect(omitted.wireBytes(limit: .max) == Array(try Outcome.encoder().encode(omitted)))
    }

    @Test("wire times are Foundation's ISO 8601 with milliseconds, truncated, for any instant not within 2 µs of a millisecond")
    func wireDates() {
        var random = SystemRandomNumberGenerator()
        let instants =
            [0, 0.000_9, 0.001, 0.999_6, -1.234_5, -86_400, 951_782_400, 4_102_444_800 - 0.000_1, 1_795_413_917.842_9]
            + (0..<20_000).map { _ in Double.random(in: -2_000_000_000...4_000_000_000, using: &random) }
        for seconds in instants {
            let date = Date(timeIntervalSince1970: seconds)
            let fraction = (seconds - seconds.rounded(.down)) * 1_000
            // Foundation converts to its own reference date first: far from 2001 (ulp 0.5 µs) an
            // instant just above a millisecond can land just below it there, and be written one
            // millisecond early. Near a millisecond on either side only the rules below hold.
            let beyond = fraction - fraction.rounded(.down)
            guard beyond > 0.002, beyond < 0.998 else { continue }
            let expected = date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
            #expect(WireDate.text(date) == expected, "\(seconds)")
            if WireDate.text(date) != expected { break }
        }
        // Just below a millisecond, below a Date's precision there: that millisecond.
        #expect(WireDate.text(Date(timeIntervalSince1970: 1_795_428_000.125 - 0.000_000_2)) == "2026-11-23T10:00:00.125Z")
        #expect(WireDate.text(Date(timeIntervalSince1970: 1_795_428_000.125 - 0.000_01)) == "2026-11-23T10:00:00.124Z")
        #expect(WireDate.parse("2026-11-23T10:00:00.125Z") == Date(timeIntervalSince1970: 1_795_428_000.125))
        #expect(WireDate.parse("2026-11-23T10:00:00Z") == Date(timeIntervalSince1970: 1_795_428_000))
    }

    @Test("a wire time read back writes the same text, for every millisecond (Foundation's formatter loses one in most)")
    func wireDatesRoundTrip() {
        var random = SystemRandomNumberGenerator()
        let seconds: [Int64] =
            [0, -1, 951_782_400, 1_795_413_931, 4_102_444_799] + (0..<20).map { _ in Int64.random(in: -2_000_000_000...4_000_000_000, using: &random) }
        var checked = 0
        for second in seconds {
            for millisecond in Int64(0)..<1_000 {
                let text = WireDate.text(Date(timeIntervalSince1970: Double(second * 1_000 + millisecond) / 1_000))
                guard let read = WireDate.parse(text) else {
                    Issue.record("\(text) does not parse")
                    return
                }
                #expect(WireDate.text(read) == text)
                let foundation = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
                #expect(foundation.map { abs($0.timeIntervalSince(read)) < 0.000_001 } == true, "\(text): the instant Foundation reads")
                if WireDate.text(read) != text { return }
                checked += 1
            }
        }
        #expect(checked == seconds.count * 1_000)
        for invalid in ["2026-13-01T00:00:00.000Z", "2026-02-29T00:00:00.000Z", "2026-11-23T24:00:00.000Z", "2026-11-23T10:00:00.1x5Z", "yesterday"] {
            #expect(WireDate.parse(invalid) == nil, "\(invalid)")
        }
        #expect(WireDate.parse("2024-02-29T23:59:59.999Z") == Date(timeIntervalSince1970: 1_709_251_199.999))
        let offset = WireDate.parse("2026-11-23T11:00:00.125+01:00")
        #expect(offset.map { abs($0.timeIntervalSince1970 - 1_795_428_000.125) < 0.000_001 } == true, "other offsets: Foundation's reader")
    }

    @Test("a request's wire form is what JSONSerialization writes with sorted keys, and reads back the same")
    func requestWireForm() throws {
        let requests = [
            PipelineRequest(id: "r/1", op: .topicsSubscribe, target: .topic("movies"), items: ["t1", "t\"2"], replayOf: "r-0", priorAttempts: 3),
            PipelineRequest(id: "d", op: .installationsDelete, target: .subject(nil), items: ["f"]),
            PipelineRequest(id: "a", op: .apnsImport, target: .apns(application: "com.x", sandbox: true), items: ["ab"]),
            PipelineRequest(id: "g", op: .groupsAdd, target: .group(name: "n", key: "k"), items: ["t"]),
            PipelineRequest(id: "e", op: .groupsExport, target: .export(byKey: true), items: ["k"]),
            PipelineRequest(id: "i", op: .instancesInfo, target: .info(details: false), items: ["t"]),
        ]
        for request in requests {
            var object: [String: Any] = ["id": request.id, "op": request.op.rawValue, request.op.itemsField.rawValue: request.items.strings]
            switch request.target {
            case .subject(let subject): if let subject { object["subject"] = subject }
            case .topic(let name): object["topic"] = name
            case .apns(let application, let sandbox): (object["application"], object["sandbox"]) = (application, sandbox)
            case .group(let name, let key): (object["notificationKeyName"], object["notificationKey"]) = (name, key)
            case .info(let details): object["details"] = details
            case .export(let byKey): if byKey { object["groupsBy"] = RequestTarget.groupsByKey }
            }
            if let replayOf = request.replayOf { object["replayOf"] = replayOf }
            if request.priorAttempts > 0 { object["priorAttempts"] = request.priorAttempts }
            let expected = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            #expect(String(decoding: request.jsonBody(), as: UTF8.self) == String(decoding: expected, as: UTF8.self))
            #expect(try RequestDecoder().decode(Array(request.jsonBody())).get() == request)
        }
    }

    @Test("a request whose outcome could pass max-outcome-bytes is refused naming its items field and how many fit")
    func oversizedOutcomeRefused() throws {
        let decoder = RequestDecoder(maxOutcomeBytes: 1_000_000)
        func deletion(_ count: Int) -> [UInt8] {
            Array(PipelineRequest(id: "d", op: .installationsDelete, target: .subject(nil), items: (0..<count).map { "fid-\($0)" }).jsonBody())
        }
        #expect(throws: Never.self) { try decoder.decode(deletion(1_000)).get() }
        guard case .failure(let rejection) = decoder.decode(deletion(5_000)) else {
            Issue.record("5,000 installations were accepted")
            return
        }
        #expect(rejection.field == "installations")
        #expect(rejection.reason.contains("max-outcome-bytes") && rejection.reason.contains("send at most about"), "\(rejection.reason)")
    }
}
