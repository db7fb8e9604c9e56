import Foundation
import InstanceAPI

/// One request record: an id chosen by its producer, an op, the op's target and the items.
///
/// Wire format (JSON, documented by `pipelines/schemas/request.schema.json`):
/// `{"id": "r-1", "op": "topics.subscribe", "topic": "movies", "tokens": ["t1", "t2"]}`.
public struct PipelineRequest: Sendable, Hashable {
    /// Unique per request, chosen by the producer; the outcome's key.
    public var id: String
    /// What to do.
    public var op: RequestOp
    /// To what.
    public var target: RequestTarget
    /// The items: tokens, installation ids or APNs tokens, each a non-empty string.
    public var items: [String]
    /// For a replayed dead letter: the id of the request it came from.
    public var replayOf: String?
    /// Attempts already spent on these items before this record (0 for new work).
    public var priorAttempts: Int

    /// A request.
    public init(id: String, op: RequestOp, target: RequestTarget, items: [String], replayOf: String? = nil, priorAttempts: Int = 0) {
        self.id = id
        self.op = op
        self.target = target
        self.items = items
        self.replayOf = replayOf
        self.priorAttempts = priorAttempts
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

    /// The wire form, as `RequestDecoder` reads it back.
    public func jsonBody() -> Data {
        var object: [String: Any] = ["id": id, "op": op.rawValue, op.itemsField: items]
        switch target {
        case .subject(let subject): if let subject { object["subject"] = subject }
        case .topic(let name): object["topic"] = name
        case .apns(let application, let sandbox):
            object["application"] = application
            object["sandbox"] = sandbox
        case .group(let name, let key):
            object["notificationKeyName"] = name
            if let key { object["notificationKey"] = key }
        case .info(let details): object["details"] = details
        case .export(let byKey): if byKey { object["groupsBy"] = RequestTarget.groupsByKey }
        }
        if let replayOf { object["replayOf"] = replayOf }
        if priorAttempts > 0 { object["priorAttempts"] = priorAttempts }
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }
}
