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
    /// operations with the same ordering key take effect in offset order. Two targets whose names
    /// differ in bytes have different keys (`ExactText.key(_:)`), even where Swift's `==` calls
    /// the names equal: the backend tells them apart.
    public var batchKey: String {
        switch self {
        case .subject: ""
        case .topic(let name): "topic:" + ExactText.key(name)
        case .apns(let application, let sandbox): "apns:\(ExactText.key(application)):\(sandbox)"
        case .group(let name, _): "group:" + ExactText.key(name)
        case .info(let details): "info:\(details)"
        case .export(let byKey): "export:\(byKey)"
        }
    }

    /// Equal when the ops' fields are, their texts compared by their bytes (`ExactText`): a
    /// request's items must go out under its own target's bytes.
    public static func == (lhs: RequestTarget, rhs: RequestTarget) -> Bool {
        switch (lhs, rhs) {
        case (.subject(let a), .subject(let b)): a.map(ExactText.init) == b.map(ExactText.init)
        case (.topic(let a), .topic(let b)): ExactText(a) == ExactText(b)
        case (.apns(let a, let x), .apns(let b, let y)): ExactText(a) == ExactText(b) && x == y
        case (.group(let a, let k), .group(let b, let l)): ExactText(a) == ExactText(b) && k.map(ExactText.init) == l.map(ExactText.init)
        case (.info(let a), .info(let b)): a == b
        case (.export(let a), .export(let b)): a == b
        default: false
        }
    }

    /// Hashes what `==` compares.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .subject(let subject):
            hasher.combine(0)
            hasher.combine(subject.map(ExactText.init))
        case .topic(let name):
            hasher.combine(1)
            hasher.combine(ExactText(name))
        case .apns(let application, let sandbox):
            hasher.combine(2)
            hasher.combine(ExactText(application))
            hasher.combine(sandbox)
        case .group(let name, let key):
            hasher.combine(3)
            hasher.combine(ExactText(name))
            hasher.combine(key.map(ExactText.init))
        case .info(let details):
            hasher.combine(4)
            hasher.combine(details)
        case .export(let byKey):
            hasher.combine(5)
            hasher.combine(byKey)
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
