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
    /// §3 `DELETE /v1/project/{p}/instanceId/{id}`.
    case deleteInstance = "installations.delete"
    /// §4 `POST|GET /fcm/notification`.
    case deviceGroup = "fcm.notification"
    /// §4 `POST /fcm/send`.
    case groupSend = "fcm.send"
    /// §1 the OAuth2 token endpoint.
    case token = "oauth2.token"

    /// The API's name as statistics and messages write it (`iid.batchAdd`).
    public var description: String { rawValue }
}
