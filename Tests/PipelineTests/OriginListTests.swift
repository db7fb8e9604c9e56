import InstanceAPI
import Testing

@testable import Pipeline

@Suite("Origin lists: a call's origins as runs, read and changed as the list of origins they stand for")
struct OriginListTests {
    typealias Origin = PlannedCall.Origin

    /// Random origins in the shapes calls have: stretches of one request's consecutive items,
    /// a request's items split over stretches, single items.
    private func randomOrigins(using random: inout SplitMix64) -> [Origin] {
        var origins: [Origin] = []
        for _ in 0..<Int(random.next() % 8) {
            let request = RequestHandle(Int(random.next() % 3))
            let first = Int(random.next() % 20)
            let count = Int(random.next() % 6)
            origins += (first..<first + count).map { Origin(request: request, index: $0) }
        }
        return origins
    }

    private func list(_ origins: [Origin]) -> OriginList {
        var list = OriginList()
        for origin in origins { list.append(request: origin.request, indexes: origin.index..<origin.index + 1) }
        return list
    }

    /// No two adjacent runs that one run could hold.
    private func isMaximal(_ list: OriginList) -> Bool {
        zip(list.runs, list.runs.dropFirst()).allSatisfy { $0.request != $1.request || $0.indexes.upperBound != $1.indexes.lowerBound }
    }

    @Test("built, sliced, cut and joined, a list holds exactly its origins, in maximal runs")
    func modelOperations() {
        var random = SplitMix64(seed: 7)
        for round in 0..<300 {
            let model = randomOrigins(using: &random)
            let origins = list(model)
            #expect(Array(origins) == model, "round \(round)")
            #expect(origins.indices.map { origins[$0] } == model)
            #expect(isMaximal(origins))
            #expect(origins == model.reduce(into: OriginList()) { $0.append(contentsOf: [$1]) }, "built one way or another, the same runs")

            let lower = Int(random.next() % UInt64(model.count + 1))
            let upper = lower + Int(random.next() % UInt64(model.count - lower + 1))
            let slice = origins.extracting(lower..<upper)
            #expect(Array(slice) == Array(model[lower..<upper]) && isMaximal(slice))
            var rest = origins
            rest.removeFirst(lower)
            #expect(Array(rest) == Array(model.dropFirst(lower)) && isMaximal(rest))
            var joined = slice
            joined.append(contentsOf: rest)
            #expect(Array(joined) == Array(model[lower..<upper]) + model.dropFirst(lower) && isMaximal(joined))
            var taken = rest
            taken.append(lower..<upper, of: origins)
            #expect(Array(taken) == Array(model.dropFirst(lower)) + model[lower..<upper] && isMaximal(taken))

            let kept = origins.positions { $0 != 1 }.flatMap { Array($0) }
            #expect(kept == model.indices.filter { model[$0].request != 1 })
            #expect(origins.carries(any: [1]) == model.contains { $0.request == 1 })
        }
    }

    @Test("a request's consecutive items are one run; a gap or another request starts the next")
    func runs() {
        var origins = OriginList(request: 4, indexes: 0..<600)
        origins.append(request: 4, indexes: 600..<1_000)
        origins.append(request: 5, indexes: 0..<10)
        origins.append(request: 5, indexes: 20..<30)
        #expect(origins.runs.map(\.request) == [4, 5, 5])
        #expect(origins.runs.map(\.indexes) == [0..<1_000, 0..<10, 20..<30])
        #expect(origins.runs.map(\.positions) == [0..<1_000, 1_000..<1_010, 1_010..<1_020])
        #expect(origins[1_015] == Origin(request: 5, index: 25))
    }
}
