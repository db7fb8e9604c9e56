/// What a request's items are applied to: its op's target fields.
public enum RequestTarget: Sendable, Hashable {
    /// `installations.delete`: the data subject, for audits (optional).
    case subject(String?)
    /// `topics.*`: the topic name, without `/topics/`.
    case topic(String)
    /// `apns.import`: the iOS bundle id and the APNs environment.
    case apns(application: String, sandbox: Bool)
    /// `groups.*`: the group's name, and its key (required to add and remove).
    case group(name: String, key: String?)
    /// `instances.info`: whether to ask for topic subscriptions too.
    case info(details: Bool)

    /// What calls may share: requests with the same op and batch key are packed together, and
    /// operations with the same ordering key take effect in offset order.
    public var batchKey: String {
        switch self {
        case .subject: ""
        case .topic(let name): "topic:" + name
        case .apns(let application, let sandbox): "apns:\(application):\(sandbox)"
        case .group(let name, _): "group:" + name
        case .info(let details): "info:\(details)"
        }
    }

    /// The target fields as an outcome shows them (`{"topic": "movies"}`).
    public var outcomeFields: [String: String] {
        switch self {
        case .subject(let subject): subject.map { ["subject": $0] } ?? [:]
        case .topic(let name): ["topic": name]
        case .apns(let application, let sandbox): ["application": application, "sandbox": "\(sandbox)"]
        case .group(let name, let key): key.map { ["notificationKeyName": name, "notificationKey": $0] } ?? ["notificationKeyName": name]
        case .info(let details): ["details": "\(details)"]
        }
    }
}
