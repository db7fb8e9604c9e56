/// The backend calls iidbatch makes, for error messages, metrics and per-API limits.
public enum BackendAPI: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// §2.1 `GET /iid/info/{token}`.
    case instanceInfo = "iid.info"
    /// §2.2 `POST /iid/v1/{token}/rel/topics/{topic}`.
    case topicRelation = "iid.relation"
    /// §2.3 `POST /iid/v1:batchAdd`.
    case batchAdd = "iid.batchAdd"
    /// §2.3 `POST /iid/v1:batchRemove`.
    case batchRemove = "iid.batchRemove"
    /// §2.4 `POST /iid/v1:batchImport`.
    case batchImport = "iid.batchImport"
    /// §2.6 FCM v1 per-token subscribe.
    case fcmSubscribe = "fcm.subscribe"
    /// §2.6 FCM v1 per-token unsubscribe.
    case fcmUnsubscribe = "fcm.unsubscribe"
    /// §2.6 FCM v1 list of one registration's topic subscriptions (a page per call).
    case fcmListTopics = "fcm.topics.list"
    /// §3 `DELETE /v1/project/{p}/instanceId/{id}`.
    case deleteInstance = "installations.delete"
    /// §4 `POST|GET /fcm/notification`.
    case deviceGroup = "fcm.notification"
    /// §4, §6 the device-group export: `GET /fcm/notification?notification_key=…` lists a
    /// group's registration tokens.
    case groupExport = "fcm.notification.export"
    /// §1 the OAuth2 token endpoint.
    case token = "oauth2.token"

    /// The day Google turns the Instance ID server API and device groups down (api-reference §6).
    public static let turndownDate = "2027-09-29"

    /// Whether Google turns this API down on `turndownDate`: the Instance ID server API and device
    /// groups, export included. New projects cannot onboard them even now.
    public var isTurnedDown: Bool {
        switch self {
        case .instanceInfo, .topicRelation, .batchAdd, .batchRemove, .batchImport, .deviceGroup, .groupExport: true
        case .fcmSubscribe, .fcmUnsubscribe, .fcmListTopics, .deleteInstance, .token: false
        }
    }

    /// Whether a call of this API names the Firebase project it acts on (in its URL or its
    /// `project_id` header). The Instance ID server API's calls name none: Google acts on the
    /// credentials' project, whatever project the caller chose.
    public var namesProject: Bool {
        switch self {
        case .instanceInfo, .topicRelation, .batchAdd, .batchRemove, .batchImport: false
        case .fcmSubscribe, .fcmUnsubscribe, .fcmListTopics, .deleteInstance, .deviceGroup, .groupExport, .token: true
        }
    }

    /// The API's name as statistics and messages write it (`iid.batchAdd`).
    public var description: String { rawValue }
}
