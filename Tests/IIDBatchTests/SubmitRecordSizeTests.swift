import Pipeline
import Testing

@testable import iidbatch

/// `submit` refuses records the worker would reject, so its default `--record-size` must make
/// records the worker takes under a pipeline's default limits, for every op, with real-size items.
@Suite("submit: the default record size fits the default limits")
struct SubmitRecordSizeTests {
    @Test("a record of the default size of real-size items is taken by a worker of default limits, for every op", arguments: RequestOp.allCases)
    func defaultSizeFits(op: RequestOp) {
        let target: RequestTarget
        let item: (Int) -> String
        switch op {
        case .topicsSubscribe, .topicsUnsubscribe:
            target = .topic("movies")
            item = { "tok-\($0)-" + String(repeating: "x", count: 150) }
        case .groupsCreate, .groupsAdd, .groupsRemove:
            target = .group(name: "family-7", key: nil)
            item = { "tok-\($0)-" + String(repeating: "x", count: 150) }
        case .groupsExport:
            target = .export(byKey: false)
            item = { "family-group-\($0)" }
        case .apnsImport:
            target = .apns(application: "com.example.ios", sandbox: false)
            item = { String(repeating: "\($0 % 10)", count: 64) }
        case .installationsDelete:
            target = .subject("user-42")
            item = { "fid-\($0)-" + String(repeating: "a", count: 14) }
        case .instancesInfo:
            target = .info(details: true)
            item = { "tok-\($0)-" + String(repeating: "x", count: 150) }
        }
        let size = SubmitTarget.defaultRecordSize(op)
        let request = PipelineRequest(id: "r-1", op: op, target: target, items: (0..<size).map(item))
        guard case .failure(let rejection) = RequestDecoder().decode(Array(request.jsonBody())) else { return }
        Issue.record("\(op.rawValue), \(size) items: \(rejection.reason)")
    }
}
