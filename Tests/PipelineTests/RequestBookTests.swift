import Foundation
import InstanceAPI
import Kafka
import TestSupport
import Testing

@testable import Pipeline

/// The request book alone: admission, settlement, acknowledgements and revokes.
@Suite("Request book: offsets per assignment, items held until acknowledged")
struct RequestBookTests {
    let p0 = KafkaTopicPartition(topic: "requests", partition: 0)
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func record(_ offset: Int64, _ request: PipelineRequest) -> KafkaRecord {
        KafkaRecord(topic: p0.topic, partition: p0.partition, offset: offset, key: nil, value: Array(request.jsonBody()))
    }

    private func request(_ id: String, items: Int) -> PipelineRequest {
        PipelineRequest(id: id, op: .topicsSubscribe, target: .topic("news"), items: (0..<items).map { "\(id)-\($0)" })
    }

    private func admit(_ book: inout RequestBook, _ offset: Int64, _ request: PipelineRequest) throws -> RequestHandle {
        guard case .admitted(let handle, _) = book.receive(record(offset, request), .success(request), at: now) else {
            throw FixtureFailure("not admitted")
        }
        return handle
    }

    /// A book holding request `id` of one item in `batch`, admitted at offset 0.
    private func bookHolding(_ id: String, batch: String) throws -> RequestBook {
        var book = RequestBook(maxInFlightItems: 1_000, maxInFlightBytes: 1 << 30)
        _ = book.assign([p0])
        var first = request(id, items: 1)
        first.batch = batch
        _ = try admit(&book, 0, first)
        return book
    }

    private func settleAll(_ book: inout RequestBook, _ handle: RequestHandle, items: Int) -> [Publication] {
        book.settle((0..<items).map { ItemSettlement(origin: .init(request: handle, index: $0), answer: ItemAnswer(ItemResult(.ok)), attempts: 1) }, at: now)
    }

    @Test("items count against the bound until the outcome is acknowledged, not when the last item settles")
    func itemsHeldUntilAcknowledged() throws {
        var book = RequestBook(maxInFlightItems: 10, maxInFlightBytes: 1 << 30)
        _ = book.assign([p0])
        let handle = try admit(&book, 0, request("a", items: 10))
        #expect(book.itemsInFlight == 10, "held from arrival")
        let publications = settleAll(&book, handle, items: 10)
        #expect(publications.count == 1)
        #expect(book.itemsInFlight == 10, "the outcome is not acknowledged yet")
        #expect(!book.isIdle)
        let storable = book.published(publications[0].ticket)
        #expect(storable == [p0: 1])
        #expect(book.itemsInFlight == 0)
        #expect(book.isIdle)
    }

    @Test("runs of settlements finish a request: counts and failed items as if settled one by one")
    func settlesRuns() throws {
        var book = RequestBook(maxInFlightItems: 1_000, maxInFlightBytes: 1 << 30)
        _ = book.assign([p0])
        let handle = try admit(&book, 0, request("a", items: 10))
        func run(_ first: Int, _ count: Int, _ code: ResultCode) -> ItemSettlement {
            ItemSettlement(origin: .init(request: handle, index: first), answer: ItemAnswer(ItemResult(code)), attempts: 1, count: count)
        }
        #expect(book.settle([run(0, 4, .ok), run(4, 2, .notFound)], at: now).isEmpty, "four items are not final yet")
        // A repeated answer for items already final is ignored; the rest completes the request.
        let publications = book.settle([run(3, 3, .internal), run(6, 2, .unavailable), run(8, 2, .ok)], at: now)
        let outcome = try #require(publications.first?.outcome)
        #expect(outcome.counts == ["OK": 6, "NOT_FOUND": 2, "UNAVAILABLE": 2])
        #expect(outcome.failedItems.map(\.index) == [4, 5, 6, 7])
        #expect(outcome.failedItems.map(\.item) == ["a-4", "a-5", "a-6", "a-7"])
        #expect(outcome.status == .partial)
        let letter = try #require(publications.first?.deadLetter, "the retryable items are dead-lettered")
        let replay = try RequestDecoder().decode(try #require(letter.value)).get()
        #expect(replay.items == ["a-6", "a-7"], "only the items that ended retryable, NOT_FOUND is final")
    }

    @Test("an acknowledgement from an earlier assignment never moves a later assignment's store point")
    func staleAcknowledgement() throws {
        var book = RequestBook(maxInFlightItems: 1_000, maxInFlightBytes: 1 << 30)
        _ = book.assign([p0])
        let first = try admit(&book, 0, request("a", items: 1))
        let second = try admit(&book, 1, request("b", items: 1))
        // b completes and starts publishing; a is still running when the partition is revoked.
        let publishing = settleAll(&book, second, items: 1)
        let abandoned = book.revoke([p0])
        #expect(abandoned == [first])
        // The partition comes back; both records are delivered again.
        _ = book.assign([p0])
        let again = try admit(&book, 0, request("a", items: 1))
        _ = try admit(&book, 1, request("b", items: 1))
        // The old publication of b is acknowledged late.
        let afterStale = book.published(publishing[0].ticket)
        #expect((afterStale[p0] ?? 0) == 0, "the stale acknowledgement moves nothing past offset 0")
        #expect(book.requestsInFlight == 2, "both records of the new assignment are still in flight")
        // The old answer for a arrives too: its handle is gone, so it changes nothing.
        #expect(settleAll(&book, first, items: 1).isEmpty)
        let done = settleAll(&book, again, items: 1)
        #expect(book.published(done[0].ticket) == [p0: 1], "only up to the record really done")
    }

    @Test("every outcome names the record it answers: a request's, a duplicate's rejection, a malformed record's")
    func outcomesNameTheirRecord() throws {
        var book = RequestBook(maxInFlightItems: 1_000, maxInFlightBytes: 1 << 30)
        _ = book.assign([p0])
        let handle = try admit(&book, 7, request("a", items: 2))
        guard case .rejected(let duplicate) = book.receive(record(8, request("a", items: 1)), .success(request("a", items: 1)), at: now) else {
            Issue.record("a duplicate id was admitted")
            return
        }
        #expect(duplicate.outcome.record?.description == "requests/0/8" && duplicate.outcome.duplicateOf == "requests/0/7")
        let bad = KafkaRecord(topic: p0.topic, partition: p0.partition, offset: 9, key: nil, value: Array("{".utf8))
        guard case .rejected(let malformed) = book.receive(bad, .failure(RequestRejection(field: "id", reason: "is required")), at: now) else {
            Issue.record("a malformed record was admitted")
            return
        }
        #expect(malformed.outcome.record?.description == "requests/0/9")
        let done = settleAll(&book, handle, items: 2)
        #expect(done.map(\.outcome.record?.description) == ["requests/0/7"])
    }

    @Test("a duplicate id in flight is rejected naming the first; a redelivery is ignored")
    func duplicates() throws {
        var book = RequestBook(maxInFlightItems: 1_000, maxInFlightBytes: 1 << 30)
        _ = book.assign([p0])
        _ = try admit(&book, 0, request("a", items: 1))
        guard case .rejected(let rejection) = book.receive(record(1, request("a", items: 1)), .success(request("a", items: 1)), at: now) else {
            Issue.record("a duplicate id was admitted")
            return
        }
        #expect(rejection.outcome.reason?.contains("duplicates a request still in flight") == true)
        #expect(rejection.outcome.duplicateOf == "requests/0/0", "names the record of the request in flight")
        #expect(rejection.ticket.items == 1, "a rejection holds as one item until published")
        guard case .ignored = book.receive(record(0, request("a", items: 1)), .success(request("a", items: 1)), at: now) else {
            Issue.record("a redelivery was admitted")
            return
        }
    }

    @Test(
        "a malformed record with the id of a request in flight is that id's duplicate: its rejection names the request in flight within a batch, so no tool takes it for the id's end"
    )
    func malformedDuplicate() throws {
        var book = try bookHolding("a", batch: "gdpr-7")
        for (offset, batch, named) in [(Int64(1), "gdpr-7", true), (2, "gdpr-8", false)] {
            let bytes = Array(#"{"id":"a","op":"topics.subscribe","topic":"news","tokens":[],"batch":"\#(batch)"}"#.utf8)
            let junk = KafkaRecord(topic: p0.topic, partition: p0.partition, offset: offset, key: nil, value: bytes)
            let decoded = RequestDecoder().decode(bytes)
            guard case .failure(let why) = decoded, why.requestID == "a", why.batch == batch else {
                throw FixtureFailure("not a readable rejection: \(decoded)")
            }
            guard case .rejected(let rejection) = book.receive(junk, decoded, at: now) else { throw FixtureFailure("not rejected") }
            #expect(rejection.outcome.requestID == "a" && rejection.outcome.status == .rejected)
            #expect((rejection.outcome.duplicateOf == "requests/0/0") == named, "batch \(batch): \(String(describing: rejection.outcome.duplicateOf))")
            #expect(rejection.outcome.reason?.contains("tokens") == true, "it still says what is wrong with it: \(rejection.outcome.reason ?? "")")
        }
    }
}

extension RequestBookTests {
    @Test("record bytes count from arrival until the outcome is acknowledged, or until a revoke; a rejected record's until its dead letter is")
    func bytesHeldUntilAcknowledged() throws {
        var book = RequestBook(maxInFlightItems: 1_000, maxInFlightBytes: 1 << 20)
        _ = book.assign([p0])
        let padded = KafkaRecord(
            topic: p0.topic, partition: p0.partition, offset: 0, key: Array("subject".utf8),
            value: Array(#"{"id":"a","op":"installations.delete","installations":["fid"]}"#.utf8) + Array(repeating: UInt8(ascii: " "), count: 500_000))
        let bytes = 7 + padded.value!.count
        let decoded = RequestDecoder().decode(padded.value!)
        guard case .admitted(let handle, _) = book.receive(padded, decoded, at: now) else { throw FixtureFailure("not admitted") }
        #expect(book.held == ReadGate.Load(items: 1, bytes: bytes), "one item, and the whole record it points into")
        #expect(book.bound == ReadGate.Load(items: 1_000, bytes: 1 << 20))
        let publications = settleAll(&book, handle, items: 1)
        #expect(book.bytesInFlight == bytes, "the outcome is not acknowledged yet")
        _ = book.published(publications[0].ticket)
        #expect(book.held == ReadGate.Load(items: 0, bytes: 0))

        // A rejected record holds its bytes in its dead letter until that is acknowledged.
        var junk = padded
        junk.offset = 1
        junk.value = Array(#"{"pad":""#.utf8) + Array(repeating: UInt8(ascii: "x"), count: 300_000) + Array(#""}"#.utf8)
        guard case .rejected(let rejection) = book.receive(junk, RequestDecoder().decode(junk.value!), at: now) else {
            throw FixtureFailure("not rejected")
        }
        #expect(book.held == ReadGate.Load(items: 1, bytes: 7 + junk.value!.count), "and counts as one item")
        _ = book.published(rejection.ticket)
        #expect(book.bytesInFlight == 0)
        #expect(book.peakBytesInFlight == bytes)

        // A revoke releases what the abandoned requests held.
        var again = padded
        again.offset = 2
        _ = book.receive(again, RequestDecoder().decode(again.value!), at: now)
        #expect(book.bytesInFlight == bytes)
        book.revoke([p0])
        #expect(book.held == ReadGate.Load(items: 0, bytes: 0))
    }

    @Test("a rejected record holds an outcome and a dead letter until published: it counts as an item, so empty records (tombstones) reach the bound too")
    func rejectedRecordsCountAgainstTheBound() throws {
        var book = RequestBook(maxInFlightItems: 10, maxInFlightBytes: 1 << 30)
        _ = book.assign([p0])
        var tickets: [PublishTicket] = []
        for offset in 0..<10 {
            let tombstone = KafkaRecord(topic: p0.topic, partition: p0.partition, offset: Int64(offset), key: nil, value: nil)
            guard case .rejected(let publication) = book.receive(tombstone, RequestDecoder().decode([]), at: now) else {
                throw FixtureFailure("a tombstone was not rejected")
            }
            tickets.append(publication.ticket)
        }
        #expect(book.held.reaches(book.bound), "ten unpublished rejections hold \(book.held), bound \(book.bound)")
        for ticket in tickets { _ = book.published(ticket) }
        #expect(book.itemsInFlight == 0 && book.isIdle)
    }

    @Test(
        "a duplicate names the record in flight (duplicateOf) only when both are of one batch: against another batch's request, its rejection is that record's end"
    )
    func duplicateOfOnlyWithinABatch() throws {
        var book = try bookHolding("a", batch: "b1")
        for (offset, batch, named) in [(Int64(1), "b1", true), (2, "b2", false)] {
            var again = request("a", items: 1)
            again.batch = batch
            guard case .rejected(let rejection) = book.receive(record(offset, again), .success(again), at: now) else {
                throw FixtureFailure("a duplicate id was admitted")
            }
            #expect((rejection.outcome.duplicateOf != nil) == named, "batch \(batch): \(String(describing: rejection.outcome.duplicateOf))")
        }
    }
}
