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
    /// `groups.export`: whether the items are notification keys (else notification key names).
    case export(byKey: Bool)

    /// `groupsBy` of a `groups.export` request whose items are notification key names (the default).
    public static let groupsByName = "notificationKeyName"
    /// `groupsBy` of a `groups.export` request whose items are notification keys.
    public static let groupsByKey = "notificationKey"

    /// What calls may share: requests with the same op and batch key are packed together, and
    /// operations with the same ordering key take effect in offset order.
    public var batchKey: String {
        switch self {
        case .subject: ""
        case .topic(let name): "topic:" + name
        case .apns(let application, let sandbox): "apns:\(application):\(sandbox)"
        case .group(let name, _): "group:" + name
        case .info(let details): "info:\(details)"
        case .export(let byKey): "export:\(byKey)"
        }
    }

    /// The target fields as an outcome shows them (`{"topic": "movies"}`), named as the request
    /// names them (`PipelineRequest.Field`).
    public var outcomeFields: [String: String] {
        typealias Field = PipelineRequest.Field
        return switch self {
        case .subject(let subject): subject.map { [Field.subject.rawValue: $0] } ?? [:]
        case .topic(let name): [Field.topic.rawValue: name]
        case .apns(let application, let sandbox): [Field.application.rawValue: application, Field.sandbox.rawValue: "\(sandbox)"]
        case .group(let name, let key):
            key.map { [Field.notificationKeyName.rawValue: name, Field.notificationKey.rawValue: $0] } ?? [Field.notificationKeyName.rawValue: name]
        case .info(let details): [Field.details.rawValue: "\(details)"]
        case .export(let byKey): [Field.groupsBy.rawValue: byKey ? Self.groupsByKey : Self.groupsByName]
        }
    }
}
