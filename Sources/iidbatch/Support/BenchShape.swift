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
        let items = (0..<itemsPerRequest).map { pool[(number * itemsPerRequest + $0) % pool.count] }
        let id = "bench-\(rawValue)-\(number)"
        switch self {
        case .topics1000, .topics100:
            let topic = "bench-\(number % 64)"
            return (topic, PipelineRequest(id: id, op: op, target: .topic(topic), items: items))
        case .deletions3:
            return (id, PipelineRequest(id: id, op: op, target: .subject("user-\(number)"), items: items))
        case .imports100:
            // The pool holds FCM registration tokens, which are no APNs tokens: imported, each
            // would fail as INVALID_ARGUMENT. An import migrates device tokens, so each pool
            // entry stands for one.
            return (id, PipelineRequest(id: id, op: op, target: .apns(application: "com.example.ios", sandbox: false), items: items.map(Self.apnsToken)))
        }
    }

    /// A device token as APNs issues them, 64 hex digits, made from `seed` (the same seed, the same token).
    static func apnsToken(_ seed: String) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var token: [UInt8] = []
        for round in 0..<4 {
            for byte in seed.utf8 + [UInt8(round)] {
                hash ^= UInt64(byte)
                hash &*= 0x100_0000_01b3
            }
            for shift in stride(from: 60, through: 0, by: -4) { token.append(digits[Int(hash >> UInt64(shift) & 0xF)]) }
        }
        return String(decoding: token, as: UTF8.self)
    }
}
