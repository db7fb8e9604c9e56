import Kafka
import Testing

@testable import Pipeline

@Suite("Replay selection: the letters of one request go as one record")
struct ReplaySelectionTests {
    /// A dead letter of request `id` read back from the topic, at `offset` of partition 0.
    private static func letter(
        _ id: String, _ items: [String], attempts: Int, at offset: Int64, op: RequestOp = .topicsSubscribe, topic: String = "movies"
    ) -> DeadLetter {
        let request = PipelineRequest(id: id, op: op, target: .topic(topic), items: items)
        let made = DeadLetter.leftover(
            request, key: Array(topic.utf8), from: KafkaTopicPartition(topic: "requests", partition: 0), offset: offset * 10, lastError: "UNAVAILABLE",
            attempts: attempts, codes: ["UNAVAILABLE"])
        return DeadLetter(KafkaRecord(topic: "dlq", partition: 0, offset: offset, key: made.key, value: made.value, headers: made.headers))
    }

    @Test("a letter whose items are all in another of its request is folded into it, which goes with the most attempts")
    func foldsContainedLetters() throws {
        let first = Self.letter("s-1", ["a", "b", "c"], attempts: 3, at: 0)
        let again = Self.letter("s-1", ["a", "c"], attempts: 6, at: 1)
        let last = Self.letter("s-1", ["c"], attempts: 9, at: 2)
        let other = Self.letter("s-2", ["a"], attempts: 1, at: 3)
        let selection = ReplaySelection([first, again, last, other])
        #expect(selection.kept.map(\.position) == [first.position, other.position])
        #expect(selection.kept.map(\.attempts) == [9, 1])
        #expect(selection.folded.map(\.letter.position) == [again.position, last.position])
        #expect(selection.folded.allSatisfy { $0.into.position == first.position })
        let replay = try #require(selection.kept[0].replay())
        let request = try #require(try? RequestDecoder().decode(replay.value ?? []).get())
        #expect(request.items == ["a", "b", "c"] && request.priorAttempts == 9)
    }

    @Test("letters with the same items: the latest is kept (a record of the id rejected in flight, and the request's own dead letter)")
    func equalItemsKeepTheLatest() {
        let duplicate = Self.letter("s-1", ["a", "b"], attempts: 0, at: 0)
        let exhausted = Self.letter("s-1", ["b", "a"], attempts: 4, at: 1)
        let selection = ReplaySelection([duplicate, exhausted])
        #expect(selection.kept.map(\.position) == [exhausted.position] && selection.kept.first?.attempts == 4)
        #expect(selection.folded.map(\.letter.position) == [duplicate.position])
    }

    @Test("letters of one id are all replayed when neither holds the other's items, or their op or target differ")
    func unrelatedLettersStay() {
        let disjoint = [Self.letter("daily", ["a"], attempts: 1, at: 0), Self.letter("daily", ["b"], attempts: 1, at: 1)]
        #expect(ReplaySelection(disjoint).kept.count == 2 && ReplaySelection(disjoint).folded.isEmpty)
        let targets = [Self.letter("daily", ["a"], attempts: 1, at: 0), Self.letter("daily", ["a", "b"], attempts: 1, at: 1, topic: "news")]
        #expect(ReplaySelection(targets).kept.count == 2)
        let ops = [Self.letter("daily", ["a"], attempts: 1, at: 0), Self.letter("daily", ["a", "b"], attempts: 1, at: 1, op: .topicsUnsubscribe)]
        #expect(ReplaySelection(ops).kept.count == 2)
    }

    @Test("items are compared by their bytes: a Kelvin sign is not a K")
    func itemsByBytes() {
        let letters = [Self.letter("s-1", ["tok\u{212A}"], attempts: 1, at: 0), Self.letter("s-1", ["tokK", "x"], attempts: 1, at: 1)]
        let selection = ReplaySelection(letters)
        #expect(selection.kept.count == 2 && selection.folded.isEmpty)
    }

    @Test("a topic flooded with letters of one id: the same items fold into the latest; past mostComparedSets distinct sets, none is compared")
    func floodOfOneID() {
        let same = (0..<5_000).map { Self.letter("flood", ["a", "b"], attempts: $0 % 7, at: Int64($0)) }
        let folded = ReplaySelection(same)
        #expect(folded.kept.map(\.position) == [same.last!.position] && folded.kept.first?.attempts == 6 && folded.folded.count == 4_999)
        let distinct =
            (0..<5_000).map { Self.letter("flood", ["t\($0)"], attempts: 1, at: Int64($0)) } + [Self.letter("flood", ["t1", "t2"], attempts: 1, at: 5_000)]
        let many = ReplaySelection(distinct)
        #expect(many.kept.count == 5_001, "more than \(ReplaySelection.mostComparedSets) distinct sets: only equal ones fold")
        let few = ReplaySelection(Array(distinct.prefix(3)) + [distinct.last!])
        #expect(few.kept.count == 2 && few.folded.map(\.letter.position) == [distinct[1].position, distinct[2].position])
    }
}
