import ArgumentParser
import Pipeline

/// A kind of request `iidbatch bench worker` measures: its op and its number of items.
enum BenchShape: String, CaseIterable, ExpressibleByArgument, Sendable {
    /// `topics.subscribe` requests of 1,000 tokens.
    case topics1000 = "topics-1000"
    /// `topics.subscribe` requests of 100 tokens.
    case topics100 = "topics-100"
    /// `installations.delete` requests of 3 ids (a user's devices).
    case deletions3 = "deletions-3"
    /// `apns.import` requests of 100 APNs tokens (64 hex digits, which the emulator imports).
    case imports100 = "imports-100"

    /// The op.
    var op: RequestOp {
        switch self {
        case .topics1000, .topics100: .topicsSubscribe
        case .deletions3: .installationsDelete
        case .imports100: .apnsImport
        }
    }

    /// Items per request.
    var itemsPerRequest: Int {
        switch self {
        case .topics1000: 1_000
        case .topics100, .imports100: 100
        case .deletions3: 3
        }
    }

    /// Request `number`, its items drawn in turn from `pool`, keyed as users key them.
    func request(_ number: Int, pool: [String]) -> (key: String, request: PipelineRequest) {
        let indices = (0..<itemsPerRequest).map { (number * itemsPerRequest + $0) % pool.count }
        let items = indices.map { pool[$0] }
        let id = "bench-\(rawValue)-\(number)"
        switch self {
        case .topics1000, .topics100:
            let topic = "bench-\(number % 64)"
            return (topic, PipelineRequest(id: id, op: op, target: .topic(topic), items: items))
        case .deletions3:
            return (id, PipelineRequest(id: id, op: op, target: .subject("user-\(number)"), items: items))
        case .imports100:
            // The pool holds FCM registration tokens, which are no APNs tokens: imported, each
            // would fail as INVALID_ARGUMENT. An import migrates device tokens: the item at pool
            // index i becomes the 64-hex-digit device token i.
            let tokens = indices.map { index in
                let hex = String(index, radix: 16)
                return String(repeating: "0", count: 64 - hex.count) + hex
            }
            return (id, PipelineRequest(id: id, op: op, target: .apns(application: "com.example.ios", sandbox: false), items: tokens))
        }
    }
}
