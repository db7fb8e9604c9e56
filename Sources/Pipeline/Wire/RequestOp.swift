import InstanceAPI

/// What a request asks for. The raw value is the `op` field of the wire format.
public enum RequestOp: String, Sendable, Hashable, Codable, CaseIterable {
    /// Delete installations (FIDs or instance ids): GDPR erasure. One call per item.
    case installationsDelete = "installations.delete"
    /// Subscribe tokens to a topic: batchAdd, 1,000 per call, or FCM v1, one per call (`itemsPerCall(on:)`).
    case topicsSubscribe = "topics.subscribe"
    /// Unsubscribe tokens from a topic: batchRemove, 1,000 per call, or FCM v1, one per call.
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

    /// The request field that holds the items.
    public var itemsField: PipelineRequest.Field {
        switch self {
        case .installationsDelete: .installations
        case .apnsImport: .apnsTokens
        case .topicsSubscribe, .topicsUnsubscribe, .groupsCreate, .groupsAdd, .groupsRemove, .instancesInfo: .tokens
        case .groupsExport: .groups
        }
    }

    /// The target fields of a request of this op.
    public var targetFields: [PipelineRequest.Field] {
        switch self {
        case .installationsDelete: [.subject]
        case .topicsSubscribe, .topicsUnsubscribe: [.topic]
        case .apnsImport: [.application, .sandbox]
        case .groupsCreate, .groupsAdd, .groupsRemove: [.notificationKeyName, .notificationKey]
        case .instancesInfo: [.details]
        case .groupsExport: [.groupsBy]
        }
    }

    /// The names of the members a request of this op may hold: `id`, `op`, `replayOf`,
    /// `priorAttempts`, `batch`, its target fields and its items field. `RequestDecoder` refuses a
    /// request with any other, naming it: a member the worker would ignore (a misspelt `subjet`,
    /// another op's `topic`) is never silently dropped from what the producer meant, nor carried
    /// in memory unread.
    public var members: Set<String> { Self.memberNames[self]! }

    /// `members` of every op, worked out once: the decoder asks it for every record.
    private static let memberNames = Dictionary(
        uniqueKeysWithValues: allCases.map { op in
            let fields: [PipelineRequest.Field] = [.id, .op, .replayOf, .priorAttempts, .batch, op.itemsField] + op.targetFields
            return (op, Set(fields.lazy.map(\.rawValue)))
        })

    /// The backend API every call of this op makes when the pipeline's topic ops go to `backend`.
    /// Topic ops and `instances.info` call the Instance ID API on `.iidBatch` and FCM HTTP v1 on
    /// `.fcmV1`; every other op calls the same API on either. This is the one map from op to API:
    /// rate limits, concurrency, statistics and the executor all key on its answer.
    public func api(on backend: TopicBackend) -> BackendAPI {
        switch self {
        case .installationsDelete: .deleteInstance
        case .topicsSubscribe: backend == .iidBatch ? .batchAdd : .fcmSubscribe
        case .topicsUnsubscribe: backend == .iidBatch ? .batchRemove : .fcmUnsubscribe
        case .apnsImport: .batchImport
        case .groupsCreate, .groupsAdd, .groupsRemove: .deviceGroup
        case .instancesInfo: backend == .iidBatch ? .instanceInfo : .fcmListTopics
        case .groupsExport: .groupExport
        }
    }

    /// The most items one call of this op carries on `backend`: the limit of the API it calls
    /// there (`APILimits.itemsPerCall(_:)`), so 1,000 tokens per topic call on `.iidBatch` and
    /// one on `.fcmV1`. Always at least one.
    public func itemsPerCall(on backend: TopicBackend) -> Int { APILimits.itemsPerCall(api(on: backend)) }

    /// The most items one call of this op carries on any backend: what no planner may exceed,
    /// however it was made.
    public var mostItemsPerCall: Int { Self.mostItems[self]! }

    /// `mostItemsPerCall` of every op, worked out once: planners ask it for every call.
    private static let mostItems = Dictionary(uniqueKeysWithValues: allCases.map { op in (op, TopicBackend.allCases.map(op.itemsPerCall(on:)).max()!) })

    /// The most items one request of this op may hold, when the API sets one: a device group
    /// never holds more than `APILimits.groupMembers` members, so no request can add more.
    public var requestItemLimit: Int? {
        switch self {
        case .groupsCreate, .groupsAdd, .groupsRemove: APILimits.groupMembers
        case .installationsDelete, .instancesInfo, .topicsSubscribe, .topicsUnsubscribe, .apnsImport, .groupsExport: nil
        }
    }

    /// Whether items of different requests may share a call. Not for device groups: a group call
    /// has one answer for all its members (a 400 for a full group, an existing name, an unknown
    /// key), so one request's members would fail for another's (15 members fit a group of 5, 16
    /// do not). A request of theirs holds at most `requestItemLimit` members: one call each
    /// unless `batching.max-items` is lower.
    public var sharesCalls: Bool {
        switch self {
        case .groupsCreate, .groupsAdd, .groupsRemove: false
        case .installationsDelete, .instancesInfo, .topicsSubscribe, .topicsUnsubscribe, .apnsImport, .groupsExport: true
        }
    }

    /// The most items any call carries, of any op on any backend: the most a pipeline's
    /// `batching.max-items` can say.
    public static let largestCallLimit = mostItems.values.max()!

    /// Every op, as the wire spells them, for error messages.
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
