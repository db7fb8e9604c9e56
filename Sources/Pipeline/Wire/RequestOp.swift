import InstanceAPI

/// What a request asks for. The raw value is the `op` field of the wire format.
public enum RequestOp: String, Sendable, Hashable, Codable, CaseIterable {
    /// Delete installations (FIDs or instance ids): GDPR erasure. One call per item.
    case installationsDelete = "installations.delete"
    /// Subscribe tokens to a topic: batchAdd, 1,000 per call.
    case topicsSubscribe = "topics.subscribe"
    /// Unsubscribe tokens from a topic: batchRemove, 1,000 per call.
    case topicsUnsubscribe = "topics.unsubscribe"
    /// Import APNs tokens as registration tokens: batchImport, 100 per call.
    case apnsImport = "apns.import"
    /// Create a device group: 20 members per call.
    case groupsCreate = "groups.create"
    /// Add members to a device group: 20 per call.
    case groupsAdd = "groups.add"
    /// Remove members from a device group: 20 per call.
    case groupsRemove = "groups.remove"
    /// Read what the backend knows of tokens. One call per item.
    case instancesInfo = "instances.info"
    /// Export device groups' members before device groups are turned down (api-reference §6).
    /// One group per call.
    case groupsExport = "groups.export"

    /// The name of the request field that holds the items.
    public var itemsField: String {
        switch self {
        case .installationsDelete: "installations"
        case .apnsImport: "apnsTokens"
        case .topicsSubscribe, .topicsUnsubscribe, .groupsCreate, .groupsAdd, .groupsRemove, .instancesInfo: "tokens"
        case .groupsExport: "groups"
        }
    }

    /// The members a request of this op may hold: `id`, `op`, `replayOf` and `priorAttempts`,
    /// its target fields and its items field. `RequestDecoder` refuses a request with any other,
    /// naming it: a member the worker would ignore (a misspelt `subjet`, another op's `topic`) is
    /// never silently dropped from what the producer meant, nor carried in memory unread.
    public var members: Set<String> {
        let target: [String] =
            switch self {
            case .installationsDelete: ["subject"]
            case .topicsSubscribe, .topicsUnsubscribe: ["topic"]
            case .apnsImport: ["application", "sandbox"]
            case .groupsCreate, .groupsAdd, .groupsRemove: ["notificationKeyName", "notificationKey"]
            case .instancesInfo: ["details"]
            case .groupsExport: ["groupsBy"]
            }
        return Set(["id", "op", "replayOf", "priorAttempts", itemsField] + target)
    }

    /// Items one backend call may carry (`APILimits`).
    public var perCallLimit: Int {
        switch self {
        case .installationsDelete, .instancesInfo, .groupsExport: 1
        case .topicsSubscribe, .topicsUnsubscribe: APILimits.topicBatch
        case .apnsImport: APILimits.importBatch
        case .groupsCreate, .groupsAdd, .groupsRemove: APILimits.groupMembers
        }
    }

    /// The most items one request of this op may hold, when the API sets one: a device group
    /// never holds more than `APILimits.groupMembers` members, so no request can add more.
    public var requestItemLimit: Int? {
        switch self {
        case .groupsCreate, .groupsAdd, .groupsRemove: APILimits.groupMembers
        case .installationsDelete, .instancesInfo, .topicsSubscribe, .topicsUnsubscribe, .apnsImport, .groupsExport: nil
        }
    }

    /// The largest per-call limit of any op: the most a pipeline's `batching.max-items` can say.
    public static let largestCallLimit = allCases.map(\.perCallLimit).max()!

    /// Every op, as the wire spells them, for error messages.
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
