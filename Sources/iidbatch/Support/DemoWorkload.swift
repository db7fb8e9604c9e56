import Foundation
import InstanceAPI
import Pipeline

/// The demo's requests: a realistic mix of topic changes, deletions, APNs imports and
/// device-group changes, plus malformed records of every kind, generated from a seed.
struct DemoWorkload {
    /// One record to produce.
    struct Record: Sendable {
        var topic: String
        var key: String
        var value: [UInt8]
        /// The outcome's request id; nil for a record without a readable id (then it is
        /// `topic/partition/offset`, known once the record is written).
        var id: String?
        var items: Int
    }

    /// Registration tokens to seed the emulator with.
    var tokens: [String] = []
    /// Installations to seed the emulator with.
    var installations: [String] = []
    /// The records, interleaved across topics.
    var records: [Record] = []
    private var random: UInt64

    /// Items in valid requests.
    var validItems: Int { records.filter { $0.id != nil && !$0.id!.hasPrefix("demo-bad") }.reduce(0) { $0 + $1.items } }

    /// A workload of about `scale` × (100k topic changes, 10k deletions, 5k imports, 300 group changes).
    init(scale: Double, topics: (changes: String, deletions: String, imports: String, groups: String), seed: UInt64 = 7) {
        random = seed
        let pool = (0..<max(1_000, Int(20_000 * scale))).map { "demo-token-\(NumberText.digits($0, width: 6))" }
        tokens = pool
        var lanes: [[Record]] = [
            topicChanges(Int(100_000 * scale), pool: pool, topic: topics.changes),
            deletions(Int(10_000 * scale), topic: topics.deletions),
            imports(Int(5_000 * scale), topic: topics.imports),
            groups(max(3, Int(100 * scale)), pool: pool, topic: topics.groups),
        ]
        lanes.append(Self.malformed(topics))
        // Round-robin over the lanes so every pipeline has work from the start.
        while lanes.contains(where: { !$0.isEmpty }) {
            for lane in lanes.indices where !lanes[lane].isEmpty { records.append(lanes[lane].removeFirst()) }
        }
    }

    private mutating func next(_ bound: Int) -> Int {
        random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((random >> 33) % UInt64(bound))
    }

    private static func record(_ topic: String, _ request: PipelineRequest) -> Record {
        Record(topic: topic, key: request.recordKey, value: Array(request.jsonBody()), id: request.id, items: request.items.count)
    }

    private mutating func topicChanges(_ total: Int, pool: [String], topic: String) -> [Record] {
        let sizes = [1_000, 500, 250, 1_200, 50, 2_000]
        var records: [Record] = []
        var made = 0
        var cursor = 0
        while made < total {
            let size = min(sizes[records.count % sizes.count], total - made)
            let name = "news-\(next(40))"
            let items = (0..<size).map { offset -> String in
                // About 1 % of tokens were never registered: NOT_FOUND.
                next(100) == 0 ? "unregistered-\(made + offset)" : pool[(cursor + offset) % pool.count]
            }
            cursor += size
            let op: RequestOp = next(4) == 0 ? .topicsUnsubscribe : .topicsSubscribe
            records.append(Self.record(topic, PipelineRequest(id: "demo-topics-\(records.count)", op: op, target: .topic(name), items: items)))
            made += size
        }
        return records
    }

    private mutating func deletions(_ total: Int, topic: String) -> [Record] {
        var records: [Record] = []
        for start in stride(from: 0, to: total, by: 20) {
            let ids = (start..<min(start + 20, total)).map { "fid-demo-\(NumberText.digits($0, width: 13))" }
            // About 2 % were erased before (or never existed): ALREADY_ABSENT, a success.
            installations += ids.filter { _ in next(50) != 0 }
            let subject = "subject-\(start / 20)"
            records.append(
                Self.record(topic, PipelineRequest(id: "demo-delete-\(records.count)", op: .installationsDelete, target: .subject(subject), items: ids)))
        }
        return records
    }

    private mutating func imports(_ total: Int, topic: String) -> [Record] {
        var records: [Record] = []
        for start in stride(from: 0, to: total, by: 50) {
            let tokens = (start..<min(start + 50, total)).map { n -> String in
                next(100) == 0 ? "not-an-apns-token-\(n)" : NumberText.digits(UInt64(n) &* 0x9E37_79B9_7F4A_7C15, radix: 16, width: 64)
            }
            records.append(
                Self.record(
                    topic,
                    PipelineRequest(
                        id: "demo-import-\(records.count)", op: .apnsImport, target: .apns(application: "com.example.ios", sandbox: false), items: tokens)))
        }
        return records
    }

    private mutating func groups(_ count: Int, pool: [String], topic: String) -> [Record] {
        var records: [Record] = []
        for group in 0..<count {
            let name = "family-\(group)"
            let members = (0..<10).map { _ in pool[next(pool.count)] }
            let steps: [(RequestOp, ArraySlice<String>)] = [(.groupsCreate, members[0..<5]), (.groupsAdd, members[5..<10]), (.groupsRemove, members[0..<2])]
            for (op, tokens) in steps {
                records.append(
                    Self.record(
                        topic,
                        PipelineRequest(
                            id: "demo-group-\(records.count)", op: op, target: .group(name: name, key: nil), items: Array(Set(tokens)).sorted())))
            }
        }
        return records
    }

    /// One record of every kind of bad input, spread over the request topics.
    private static func malformed(_ topics: (changes: String, deletions: String, imports: String, groups: String)) -> [Record] {
        let tooMany = (0..<21).map { "\"demo-token-\($0)\"" }.joined(separator: ",")
        let cases: [(String, String?, String)] = [
            (topics.changes, nil, "{not json"),
            (topics.changes, "demo-bad-op", #"{"id":"demo-bad-op","op":"topics.explode","topic":"x","tokens":["a"]}"#),
            (topics.changes, "demo-bad-missing", #"{"id":"demo-bad-missing","op":"topics.subscribe","tokens":["a"]}"#),
            (topics.changes, "demo-bad-topic", #"{"id":"demo-bad-topic","op":"topics.subscribe","topic":"bad topic!","tokens":["a"]}"#),
            (topics.deletions, "demo-bad-empty", #"{"id":"demo-bad-empty","op":"installations.delete","installations":[]}"#),
            (topics.deletions, nil, "[1,2,3]"),
            (topics.imports, "demo-bad-item", #"{"id":"demo-bad-item","op":"apns.import","application":"com.example.ios","sandbox":false,"apnsTokens":[42]}"#),
            (topics.imports, "demo-bad-type", #"{"id":"demo-bad-type","op":"apns.import","application":"com.example.ios","sandbox":"no","apnsTokens":["aa"]}"#),
            (topics.groups, "demo-bad-group", #"{"id":"demo-bad-group","op":"groups.create","notificationKeyName":"g","tokens":[\#(tooMany)]}"#),
            (topics.groups, nil, "\u{01}\u{02} binary garbage \u{FF}"),
        ]
        return cases.map { topic, id, text in Record(topic: topic, key: "malformed", value: Array(text.utf8), id: id, items: 0) }
    }
}
