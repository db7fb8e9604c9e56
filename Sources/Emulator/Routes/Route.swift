import InstanceAPI

/// Which backend endpoint a request is for, with the values in its path.
enum Route {
    case info(token: String)
    case relation(token: String, topic: String)
    case batchAdd, batchRemove, batchImport
    case fcmSubscribe(project: String, token: String)
    case fcmUnsubscribe(project: String, token: String, topic: String)
    case delete(project: String, id: String)
    case groups
    case send

    init?(_ request: EmulatorRequest) {
        let p = request.path
        switch (request.method, p.count) {
        case ("GET", 3) where p[0] == "iid" && p[1] == "info": self = .info(token: p[2])
        case ("POST", 6) where p[0] == "iid" && p[1] == "v1" && p[3] == "rel" && p[4] == "topics": self = .relation(token: p[2], topic: p[5])
        case ("POST", 2) where p[0] == "iid" && p[1] == "v1:batchAdd": self = .batchAdd
        case ("POST", 2) where p[0] == "iid" && p[1] == "v1:batchRemove": self = .batchRemove
        case ("POST", 2) where p[0] == "iid" && p[1] == "v1:batchImport": self = .batchImport
        case ("POST", 6) where p[0] == "v1" && p[1] == "projects" && p[3] == "registrations" && p[5] == "topicSubscriptions":
            self = .fcmSubscribe(project: p[2], token: p[4])
        case ("DELETE", 7) where p[0] == "v1" && p[1] == "projects" && p[3] == "registrations" && p[5] == "topicSubscriptions":
            self = .fcmUnsubscribe(project: p[2], token: p[4], topic: p[6])
        case ("DELETE", 5) where p[0] == "v1" && p[1] == "project" && p[3] == "instanceId": self = .delete(project: p[2], id: p[4])
        case (_, 2) where (request.method == "POST" || request.method == "GET") && p[0] == "fcm" && p[1] == "notification": self = .groups
        case ("POST", 2) where p[0] == "fcm" && p[1] == "send": self = .send
        default: return nil
        }
    }

    var api: BackendAPI {
        switch self {
        case .info: .instanceInfo
        case .relation: .topicRelation
        case .batchAdd: .batchAdd
        case .batchRemove: .batchRemove
        case .batchImport: .batchImport
        case .fcmSubscribe: .fcmSubscribe
        case .fcmUnsubscribe: .fcmUnsubscribe
        case .delete: .deleteInstance
        case .groups: .deviceGroup
        case .send: .groupSend
        }
    }
}
