/// The dead letters `iidbatch replay` produces from those it selected: one record for the letters
/// of one request where one of them holds every item of the others.
///
/// A request can have several dead letters in one topic: its items that ran out of retries, then
/// those of a replay of them that failed again, and a record of its id rejected while it was in
/// flight. Replayed side by side they are records of one id at once, and the worker rejects all
/// but the first as duplicates in flight, dead-lettering them again: every "replay everything"
/// after an incident would grow the topic and leave their items unreplayed. So a letter whose
/// items (compared by their bytes) are all in another letter of the same id, op, target and
/// original topic is folded into that one, which is replayed with the most attempts any of them spent. Nothing is
/// lost: the kept letter carries every item of the folded ones, and replaying an item that has
/// since succeeded is harmless (every operation is idempotent). Letters of one id that differ in
/// op, target or items beyond containment (an id a producer used for two requests) are all
/// replayed, as they were. The work is linear in the letters, and bounded per id
/// (`mostComparedSets`) however a topic was flooded.
package struct ReplaySelection: Sendable {
    /// A letter folded into another of its request.
    package struct Fold: Sendable {
        /// The letter not replayed on its own.
        package var letter: DeadLetter
        /// The letter replayed in its place, which holds all its items.
        package var into: DeadLetter
    }

    /// The letters to replay, in the order selected; each with the most attempts of the letters
    /// folded into it.
    package private(set) var kept: [DeadLetter] = []
    /// The letters folded into a kept one.
    package private(set) var folded: [Fold] = []

    /// The most distinct item sets of one request compared for containment: past it (a topic
    /// flooded with letters of one id), only letters with the same items are folded, so that
    /// the comparisons stay bounded.
    static let mostComparedSets = 64

    /// The replays of `selected` (letters holding a request; any other is left out).
    package init(_ selected: [DeadLetter]) {
        // Letters of one request: the same id (by its bytes), op, target and original topic.
        struct Request: Hashable {
            var id: ExactText
            var op: RequestOp
            var target: RequestTarget
            var topic: ExactText?
        }
        var groups: [Request: [Int]] = [:]
        for (index, letter) in selected.enumerated() {
            guard let request = letter.request else { continue }
            groups[Request(id: ExactText(request.id), op: request.op, target: request.target, topic: letter.originalTopic.map(ExactText.init)), default: []]
                .append(index)
        }
        // For each letter, the one it folds into. Letters with the same items fold into the
        // latest read (its attempts are the most); of the distinct item sets, one that another
        // holds folds into the holder with the most items (then the latest).
        var into: [Int: Int] = [:]
        for indices in groups.values where indices.count > 1 {
            // Each set's last letter, then every earlier letter of the set straight to it (a chain
            // through each copy would make following it quadratic).
            var bySet: [Set<ExactText>: Int] = [:]
            var setOf: [Int: Set<ExactText>] = [:]
            for index in indices {
                let items = Set(selected[index].request!.items.map(ExactText.init))
                bySet[items] = index
                setOf[index] = items
            }
            for index in indices where bySet[setOf[index]!] != index { into[index] = bySet[setOf[index]!]! }
            let sets = bySet.map { (items: $0.key, index: $0.value) }
            guard sets.count > 1, sets.count <= Self.mostComparedSets else { continue }
            for set in sets {
                let holders = sets.filter { $0.index != set.index && set.items.isSubset(of: $0.items) && set.items.count < $0.items.count }
                if let holder = holders.max(by: { ($0.items.count, $0.index) < ($1.items.count, $1.index) }) { into[set.index] = holder.index }
            }
        }
        // Follow each chain to the letter that is kept: a copy to its set's last letter, then
        // only to larger sets (at most `mostComparedSets` steps), so every chain ends, soon.
        func root(_ index: Int) -> Int {
            var index = index
            while let next = into[index] { index = next }
            return index
        }
        var attempts: [Int: Int] = [:]
        for (index, letter) in selected.enumerated() where letter.request != nil {
            let kept = root(index)
            attempts[kept] = max(attempts[kept] ?? 0, letter.attempts)
        }
        for (index, letter) in selected.enumerated() where letter.request != nil {
            let kept = root(index)
            if kept == index {
                var letter = letter
                letter.attempts = attempts[index] ?? letter.attempts
                self.kept.append(letter)
            } else {
                folded.append(Fold(letter: letter, into: selected[kept]))
            }
        }
    }
}
