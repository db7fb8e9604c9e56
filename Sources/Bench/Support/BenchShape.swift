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
    /// `apns.import` requests of 100 APNs device tokens (64 hex digits, which the emulator imports).
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

    /// The shipped pipeline file (in `pipelines/`) that users run this shape's requests with.
    var shippedFile: String {
        switch self {
        case .topics1000, .topics100: "topic-changes.yaml"
        case .deletions3: "deletions.yaml"
        case .imports100: "apns-imports.yaml"
        }
    }

    /// The items requests draw from, real-size (`BenchItems`), each pool drawn in turn.
    struct Pools: Sendable {
        /// FCM registration tokens, which topic requests carry and the emulator is seeded with.
        var registrationTokens: [String]
        /// Firebase installation ids, which deletions carry and the emulator is seeded with.
        var installationIDs: [String]
        /// APNs device tokens, which imports carry.
        var apnsTokens: [String]

        /// `count` items of each kind, indices 0 up.
        init(count: Int) {
            registrationTokens = BenchItems.pool(count, BenchItems.registrationToken)
            installationIDs = BenchItems.pool(count, BenchItems.installationID)
            apnsTokens = BenchItems.pool(count, BenchItems.apnsToken)
        }
    }

    /// Request `number`, its items drawn in turn from the pool of its kind, keyed as users key
    /// them.
    func request(_ number: Int, pools: Pools) -> (key: String, request: PipelineRequest) {
        func items(_ pool: [String]) -> [String] { (0..<itemsPerRequest).map { pool[(number * itemsPerRequest + $0) % pool.count] } }
        let id = "bench-\(rawValue)-\(number)"
        switch self {
        case .topics1000, .topics100:
            let topic = "bench-\(number % 64)"
            return (topic, PipelineRequest(id: id, op: op, target: .topic(topic), items: items(pools.registrationTokens)))
        case .deletions3:
            return (id, PipelineRequest(id: id, op: op, target: .subject("user-\(number)"), items: items(pools.installationIDs)))
        case .imports100:
            return (
                id, PipelineRequest(id: id, op: op, target: .apns(application: "com.example.ios", sandbox: false), items: items(pools.apnsTokens))
            )
        }
    }
}
