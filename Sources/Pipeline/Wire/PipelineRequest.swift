import Foundation
import WireJSON

/// One request record: an id chosen by its producer, an op, the op's target and the items.
///
/// Wire format (JSON, documented by `pipelines/schemas/request.schema.json`):
/// `{"id": "r-1", "op": "topics.subscribe", "topic": "movies", "tokens": ["t1", "t2"], "batch": "movies-1"}`.
public struct PipelineRequest: Sendable, Hashable {
    /// Unique per request, chosen by the producer; the outcome's key.
    public var id: String
    /// What to do.
    public var op: RequestOp
    /// To what.
    public var target: RequestTarget
    /// The items: tokens, installation ids or APNs tokens, each a non-empty string.
    public var items: PackedStrings
    /// For a replayed dead letter: the id of the request it came from.
    public var replayOf: String?
    /// Attempts already spent on these items before this record (0 for new work).
    public var priorAttempts: Int
    /// The most `priorAttempts` may say (`RequestDecoder` refuses more): dead letters and replays
    /// hold the attempts they carry at it, so that a letter always replays.
    public static let maxPriorAttempts = 999_999_999
    /// The batch (job) it belongs to (`BatchName`), when its producer named one.
    public var batch: String?

    /// A request.
    public init(id: String, op: RequestOp, target: RequestTarget, items: PackedStrings, replayOf: String? = nil, priorAttempts: Int = 0, batch: String? = nil) {
        self.id = id
        self.op = op
        self.target = target
        self.items = items
        self.replayOf = replayOf
        self.priorAttempts = priorAttempts
        self.batch = batch
    }

    /// The members of a request record, the one place each is named: `RequestOp` says which of
    /// them each op has (`itemsField`, `members`), `RequestDecoder` reads them, `jsonBody()`
    /// writes them and `RequestTarget.outcomeFields` names an outcome's target by them (a test
    /// holds the writer and the decoder to `RequestOp.members`).
    public enum Field: String, CodingKey, CaseIterable, Sendable {
        /// The request's id.
        case id
        /// Its op (`RequestOp`'s raw value).
        case op
        /// For a replayed dead letter: the original request's id.
        case replayOf
        /// Attempts spent on the items before this record.
        case priorAttempts
        /// Its batch (`BatchName`).
        case batch
        /// The items of `installations.delete`.
        case installations
        /// The items of `apns.import`.
        case apnsTokens
        /// The items of topic, device-group and `instances.info` requests.
        case tokens
        /// The items of `groups.export`.
        case groups
        /// `installations.delete`'s data subject.
        case subject
        /// A topic op's topic.
        case topic
        /// `apns.import`'s iOS bundle id.
        case application
        /// `apns.import`'s APNs environment.
        case sandbox
        /// A device-group op's group name.
        case notificationKeyName
        /// A device-group op's group key.
        case notificationKey
        /// Whether `instances.info` asks for topics.
        case details
        /// What `groups.export`'s items are (`RequestTarget.groupsByName`, `groupsByKey`).
        case groupsBy
    }

    /// A request of `items` given as an array of strings.
    public init(id: String, op: RequestOp, target: RequestTarget, items: [String], replayOf: String? = nil, priorAttempts: Int = 0, batch: String? = nil) {
        self.init(id: id, op: op, target: target, items: PackedStrings(items), replayOf: replayOf, priorAttempts: priorAttempts, batch: batch)
    }

    /// Whether its outcome keys a value or list by item: an import's `imports`, an info's
    /// `topics` (with `details`), an export's `groupMembers`. Its items must then be distinct
    /// texts to every reader (`RequestDecoder`).
    public var keysOutcomeByItem: Bool {
        switch target {
        case .apns, .export: true
        case .info(let details): details
        case .topic, .subject, .group: false
        }
    }

    /// The Kafka record key its producer should use, so that changes to one thing keep their
    /// order: the topic name, the subject, the iOS application or the group name; the id when
    /// the request has none of these.
    public var recordKey: String {
        switch target {
        case .topic(let name): name
        case .subject(let subject): subject ?? id
        case .apns(let application, _): application
        case .group(let name, _): name
        case .info, .export: id
        }
    }

    /// The wire form, as `RequestDecoder` reads it back: members in sorted key order, written
    /// with a `JSONWriter` (dead letters are written with it on the worker's hot path).
    public func jsonBody() -> Data {
        /// One member's value.
        enum Value {
            case text(String)
            case texts(PackedStrings)
            case flag(Bool)
            case count(Int)
        }
        var members: [(name: Field, value: Value)] = [(.id, .text(id)), (.op, .text(op.rawValue)), (op.itemsField, .texts(items))]
        switch target {
        case .subject(let subject): if let subject { members.append((.subject, .text(subject))) }
        case .topic(let name): members.append((.topic, .text(name)))
        case .apns(let application, let sandbox): members += [(.application, .text(application)), (.sandbox, .flag(sandbox))]
        case .group(let name, let key):
            members.append((.notificationKeyName, .text(name)))
            if let key { members.append((.notificationKey, .text(key))) }
        case .info(let details): members.append((.details, .flag(details)))
        case .export(let byKey): if byKey { members.append((.groupsBy, .text(RequestTarget.groupsByKey))) }
        }
        if let replayOf { members.append((.replayOf, .text(replayOf))) }
        if priorAttempts > 0 { members.append((.priorAttempts, .count(priorAttempts))) }
        if let batch { members.append((.batch, .text(batch))) }
        var writer = JSONWriter(capacity: 64 + items.byteCount + 3 * items.count)
        writer.beginObject()
        for member in members.sorted(by: { $0.name.rawValue < $1.name.rawValue }) {
            writer.key(member.name)
            switch member.value {
            case .text(let text): writer.string(text)
            case .texts(let texts): writer.strings(texts)
            case .flag(let flag): writer.bool(flag)
            case .count(let count): writer.int(count)
            }
        }
        writer.endObject()
        return Data(writer.bytes)
    }
}
