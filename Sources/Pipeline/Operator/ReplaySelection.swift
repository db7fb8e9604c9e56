/// The dead letters `iidbatch replay` produces from those it selected: one record for the letters
/// of one request where one of them holds every item of the others.
///
/// A request can have several dead letters in one topic: its items that ran out of retries, then
/// those of a replay of them that failed again, and a record of its id rejected while it was in
/// flight. Replayed side by side they are records of one id at once, and the worker rejects all
/// but the first as duplicates in flight, dead-lettering them again: every "replay everything"
/// after an incident would grow the topic and leave their items unreplayed. So a letter whose
/// items (compared by their bytes) are all in another letter of the same id, op and target is
/// folded into that one, which is replayed with the most attempts any of them spent. Nothing is
/// lost: the kept letter carries every item of the folded ones, and replaying an item that has
/// since succeeded is harmless (every operation is idempotent). Letters of one id that differ in
/// op, target or items beyond containment (an id a producer used for two requests) are all
/// replayed, as they were.
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

    /// The replays of `selected` (letters holding a request; any other is left out).
    package init(_ selected: [DeadLetter]) {
        var byID: [ExactText: [Int]] = [:]
        for (index, letter) in selected.enumerated() {
            guard let request = letter.request else { continue }
            byID[ExactText(request.id), default: []].append(index)
        }
        // For each letter, the one it folds into: a letter of its group that holds all its items,
        // preferring the one with the most items, then the latest read (its attempts are the most).
        var into: [Int: Int] = [:]
        for indices in byID.values where indices.count > 1 {
            let items = Dictionary(uniqueKeysWithValues: indices.map { ($0, Set(selected[$0].request!.items.map(ExactText.init))) })
            for index in indices {
                let holders = indices.filter { other in
                    other != index && Self.sameRequest(selected[index], selected[other]) && items[index]!.isSubset(of: items[other]!)
                        && (items[index]!.count < items[other]!.count || other > index)
                }
                if let holder = holders.max(by: { (items[$0]!.count, $0) < (items[$1]!.count, $1) }) { into[index] = holder }
            }
        }
        // Follow each chain to the letter that is kept (containment only grows along it, and ties
        // move to later letters, so every chain ends).
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

    private static func sameRequest(_ a: DeadLetter, _ b: DeadLetter) -> Bool {
        guard let first = a.request, let second = b.request else { return false }
        return first.op == second.op && first.target == second.target && a.originalTopic == b.originalTopic
    }
}
