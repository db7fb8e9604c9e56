import InstanceAPI
import Pipeline
import Testing

@Suite("Planning calls within API limits")
struct CallPlannerTests {
    func tokens(_ count: Int, _ prefix: String = "t") -> [String] { (0..<count).map { "\(prefix)\($0)" } }

    @Test(
        "chunk boundaries: 999, 1,000 and 1,001 tokens; 100 and 101 APNs tokens; 20 and 21 deletions",
        arguments: [
            (RequestOp.topicsSubscribe, RequestTarget.topic("m"), 999, [999]),
            (.topicsSubscribe, .topic("m"), 1_000, [1_000]),
            (.topicsUnsubscribe, .topic("m"), 1_001, [1_000, 1]),
            (.apnsImport, .apns(application: "a", sandbox: false), 100, [100]),
            (.apnsImport, .apns(application: "a", sandbox: false), 101, [100, 1]),
            (.groupsAdd, .group(name: "g", key: "k"), 20, [20]),
            (.installationsDelete, .subject("s"), 21, Array(repeating: 1, count: 21)),
        ])
    func chunks(op: RequestOp, target: RequestTarget, count: Int, sizes: [Int]) {
        var planner = CallPlanner()
        planner.add(PipelineRequest(id: "r", op: op, target: target, items: tokens(count)), handle: 7)
        let calls = planner.take(flush: true)
        #expect(calls.map(\.items.count) == sizes)
        #expect(calls.flatMap(\.items) == tokens(count), "every item once, in order")
        #expect(calls.flatMap(\.origins) == (0..<count).map { PlannedCall.Origin(request: 7, index: $0) })
        #expect(planner.pendingItems == 0)
    }

    @Test("requests with the same op and target share calls; a partial call waits for the linger flush")
    func packing() {
        var planner = CallPlanner()
        for r in 0..<3 {
            planner.add(PipelineRequest(id: "r\(r)", op: .topicsSubscribe, target: .topic("m"), items: tokens(400, "r\(r)-")), handle: RequestHandle(r))
        }
        let full = planner.take(flush: false)
        #expect(full.map(\.items.count) == [1_000], "one full call now")
        #expect(full[0].origins.filter { $0.request == 2 }.count == 200)
        #expect(planner.pendingItems == 200)
        #expect(planner.take(flush: true).map(\.items.count) == [200])
    }

    @Test("subscribe then unsubscribe of one topic stay in order and never share a call")
    func ordering() {
        var planner = CallPlanner()
        planner.add(PipelineRequest(id: "a", op: .topicsSubscribe, target: .topic("m"), items: ["x", "y"]), handle: 0)
        planner.add(PipelineRequest(id: "b", op: .topicsUnsubscribe, target: .topic("m"), items: ["x"]), handle: 1)
        planner.add(PipelineRequest(id: "c", op: .topicsSubscribe, target: .topic("m"), items: ["z"]), handle: 2)
        planner.add(PipelineRequest(id: "d", op: .topicsSubscribe, target: .topic("other"), items: ["x"]), handle: 3)
        let calls = planner.take(flush: true)
        let onM = calls.filter { $0.target == .topic("m") }
        #expect(onM.map(\.op) == [.topicsSubscribe, .topicsUnsubscribe, .topicsSubscribe])
        #expect(onM.map { $0.origins.map(\.request) } == [[0, 0], [1], [2]])
        #expect(calls.contains { $0.target == .topic("other") })
    }

    @Test(
        "device-group requests never share a call: a group's one answer (full, exists, not found) is every member's, so one request's fate would hang on another's",
        arguments: [RequestOp.groupsCreate, .groupsAdd, .groupsRemove])
    func groupRequestsKeepTheirOwnCalls(op: RequestOp) {
        var planner = CallPlanner()
        planner.add(PipelineRequest(id: "a", op: op, target: .group(name: "g", key: "k"), items: tokens(15, "a")), handle: 1)
        planner.add(PipelineRequest(id: "b", op: op, target: .group(name: "g", key: "k"), items: tokens(1, "b")), handle: 2)
        let calls = planner.take(flush: true)
        #expect(calls.map { Array($0.items) } == [tokens(15, "a"), tokens(1, "b")], "two calls, in arrival order")
        #expect(calls.map { Set($0.origins.map(\.request)) } == [[1], [2]])
    }
}
