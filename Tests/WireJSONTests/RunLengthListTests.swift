import Testing
import WireJSON

@Suite("Run-length lists: answers kept as runs of equal adjacent elements")
struct RunLengthListTests {
    @Test("elements read back in order from maximal runs, whatever was appended")
    func model() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var model: [Int] = []
            var list = RunLengthList<Int>()
            for _ in 0..<Int.random(in: 0...20, using: &random) {
                let value = Int.random(in: 0...2, using: &random)
                let count = Int.random(in: 0...3, using: &random)
                model += Array(repeating: value, count: count)
                list.append(value, count: count)
            }
            #expect(Array(list) == model)
            #expect(list.count == model.count)
            #expect(model.indices.allSatisfy { list[$0] == model[$0] })
            #expect(RunLengthList(model) == list)
            let maximal = zip(list.runs, list.runs.dropFirst()).allSatisfy { $0.value != $1.value }
            #expect(maximal, "\(list.runs)")
            #expect(list.runs.count == model.indices.filter { $0 == 0 || model[$0] != model[$0 - 1] }.count)
            let mapped = list.mapRuns { $0 % 2 }
            #expect(Array(mapped) == model.map { $0 % 2 })
            #expect(mapped.runs.count == list.runs.count, "mapRuns keeps the runs")
            #expect(mapped == RunLengthList(model.map { $0 % 2 }), "equality is by elements, not by runs")
        }
    }

    @Test("a repeated value is one run; an empty list has none")
    func repeated() {
        let list = RunLengthList(repeating: "OK", count: 1_000)
        #expect(list.count == 1_000 && list.runs.count == 1 && list[999] == "OK")
        #expect(RunLengthList<String>(repeating: "OK", count: 0).isEmpty)
        #expect(RunLengthList<String>().runs.isEmpty)
    }
}
