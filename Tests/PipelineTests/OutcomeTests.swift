import Foundation
import InstanceAPI
import Pipeline
import Testing

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
            RequestOp.installationsDelete, .topicsSubscribe, .apnsImport, .groupsExport, .instancesInfo,
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
            default: .topic("movies")
            }
        let request = PipelineRequest(id: "worst/\"case\"", op: op, target: target, items: items, replayOf: "orig/\"inal\"", priorAttempts: 999_999)
        let now = Date()
        let codes = items.indices.map { ResultCode(rawValue: "UNKNOWN(" + String(repeating: "\\", count: 200) + "\($0))") }
        let outcome = Outcome(
            requestID: request.id, op: op, target: target.outcomeFields, status: .failed,
            counts: Dictionary(codes.map { ($0.rawValue, 1) }, uniquingKeysWith: +),
            failedItems: items.indices.map {
                FailedItem(index: $0, item: items[$0], code: codes[$0], attempts: 999_999_999, message: String(repeating: "\"/", count: 5_000))
            },
            imports: op == .apnsImport
                ? Dictionary(uniqueKeysWithValues: items.map { ($0, String(repeating: "r", count: OutcomeSizeBound.maxRegistrationTokenBytes)) }) : nil,
            receipt: op == .installationsDelete ? items.indices.map { ItemReceipt(item: items[$0], code: codes[$0], at: now) } : nil,
            notificationKey: nil,
            // Topic lists are not bounded (here 20 topics of 900 characters each): they are left out.
            topics: op == .instancesInfo
                ? Dictionary(uniqueKeysWithValues: items.map { ($0, (0..<20).map { "\($0)" + String(repeating: "%", count: 900) }) }) : nil,
            groupMembers: op == .groupsExport
                ? Dictionary(
                    uniqueKeysWithValues: items.map { item in
                        (item, (0..<20).map { "\($0)" + String(repeating: "t", count: OutcomeSizeBound.maxRegistrationTokenBytes - 2) })
                    }) : nil,
            reason: nil, replayOf: request.replayOf, backendCalls: 999_999_999, receivedAt: now, completedAt: now)
        let bound = OutcomeSizeBound.bytes(of: request)
        let bytes = try outcome.wireBytes(limit: bound)
        #expect(bytes.count <= bound, "\(bytes.count) bytes written, bound \(bound)")
        #expect(try outcome.wireBytes(limit: .max).count > bound, "only the messages were left out to fit")
        let decoded = try Outcome.decoder().decode(Outcome.self, from: Data(bytes))
        #expect(decoded.failedItems.map(\.code) == codes && decoded.failedItems.allSatisfy { $0.message == nil })
        if op == .instancesInfo { #expect(decoded.topicsOmitted == items.sorted() && decoded.topics == [:]) }
        if op == .groupsExport { #expect(decoded.groupMembers == outcome.groupMembers, "group members are bounded and kept") }
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
