import Foundation
import InstanceAPI

extension EmulatorBackend {
    /// §2.6 per-registration subscribe and unsubscribe through the FCM v1 API. A registration is
    /// an FCM token or a FID. `POST …/topicSubscriptions?topic_name=` creates (an existing
    /// subscription is 409 `ALREADY_EXISTS`, as Google answers a create of what exists);
    /// `PATCH …/topicSubscriptions/{topic}?allowMissing=true` creates or returns it (a body naming
    /// another resource than the URL's is refused);
    /// `DELETE …?allow_missing=true` removes it, and with `allow_missing` one that is not there is
    /// fine.
    func fcmTopic(
        _ api: BackendAPI, _ request: EmulatorRequest, pathProject: String, token: String, topic: String?, project: String, create: Bool = false
    ) -> EmulatorResponse {
        guard let project = self.project(ofPath: pathProject, caller: project) else {
            return EmulatorResponse.googleError(403, "PERMISSION_DENIED", "The caller does not have permission for project \(pathProject).").counting(items: 0)
        }
        guard let topic, let name = try? APILimits.topicName(topic) else {
            return EmulatorResponse.googleError(400, "INVALID_ARGUMENT", "Invalid topic name '\(topic ?? "")'.").counting(items: 1, codes: ["INVALID_ARGUMENT"])
        }
        if let injected = faults.itemErrors(count: 1)[0] {
            return EmulatorResponse.googleError(Self.status(forItemError: injected), injected, "Injected item failure.").counting(items: 1, codes: [injected])
        }
        let allowMissing = request.query["allowMissing"] == "true" || request.query["allow_missing"] == "true"
        if api == .fcmSubscribe && !create && !allowMissing {
            return EmulatorResponse.googleError(400, "INVALID_ARGUMENT", "allowMissing=true is required to create a subscription with PATCH.").counting(
                items: 1, codes: ["INVALID_ARGUMENT"])
        }
        // A PATCH body that names the resource names this one, as it is (not percent-encoded).
        if api == .fcmSubscribe, !create, let named = try? JSONDecoder().decode(TopicSubscriptionList.Subscription.self, from: request.body),
            named.name != "projects/\(pathProject)/registrations/\(token)/topicSubscriptions/\(name)"
        {
            return EmulatorResponse.googleError(400, "INVALID_ARGUMENT", "The name in the body, '\(named.name)', is not the resource of the URL.").counting(
                items: 1, codes: ["INVALID_ARGUMENT"])
        }
        let today = Self.today
        let problem: String? = state.withLock { state in
            if api == .fcmSubscribe {
                if create, state.problem(with: token, project: project) == nil, state.isSubscribed(token, to: name) { return "ALREADY_EXISTS" }
                return state.subscribe(token, to: name, project: project, today: today)
            }
            // allow_missing=true: a registration that is not subscribed, or gone, is fine.
            if allowMissing, state.problem(with: token, project: project) == "NOT_FOUND" { return nil }
            return state.unsubscribe(token, from: name, project: project)
        }
        switch problem {
        case nil:
            let resource = "projects/\(project)/registrations/\(token)/topicSubscriptions/\(name)"
            return EmulatorResponse.json(api == .fcmSubscribe ? ["name": resource] : [String: String]()).counting(items: 1, codes: ["OK"])
        case "ALREADY_EXISTS":
            return EmulatorResponse.googleError(409, "ALREADY_EXISTS", "Requested entity already exists.").counting(items: 1, codes: ["ALREADY_EXISTS"])
        case "NOT_FOUND":
            return EmulatorResponse.googleError(404, "NOT_FOUND", "Requested entity was not found.", fcmErrorCode: "UNREGISTERED").counting(
                items: 1, codes: ["NOT_FOUND"])
        case "TOO_MANY_TOPICS":
            return EmulatorResponse.googleError(400, "INVALID_ARGUMENT", "Too many topics.", fcmErrorCode: "TOO_MANY_TOPICS").counting(
                items: 1, codes: ["TOO_MANY_TOPICS"])
        case let code?:
            return EmulatorResponse.googleError(
                400, "INVALID_ARGUMENT", "The registration token is not a valid FCM registration token.", fcmErrorCode: "INVALID_ARGUMENT"
            ).counting(items: 1, codes: [code])
        }
    }

    /// §2.6 `GET …/registrations/{registration}/topicSubscriptions?pageSize=N&pageToken=T`: one
    /// page of the registration's subscriptions, sorted by topic, at most
    /// `min(pageSize, topicListPageSize)` long; `nextPageToken` is opaque to clients.
    func fcmListTopics(_ request: EmulatorRequest, pathProject: String, registration: String, project: String) -> EmulatorResponse {
        guard let project = self.project(ofPath: pathProject, caller: project) else {
            return EmulatorResponse.googleError(403, "PERMISSION_DENIED", "The caller does not have permission for project \(pathProject).").counting(items: 0)
        }
        let asked = request.query["pageSize"].map { Int($0) } ?? APILimits.topicListPage
        guard let asked, asked >= 0, asked <= APILimits.topicListPage else {
            return EmulatorResponse.googleError(400, "INVALID_ARGUMENT", "pageSize must be 0 to \(APILimits.topicListPage).").counting(
                items: 1, codes: ["INVALID_ARGUMENT"])
        }
        let pageSize = min(asked == 0 ? APILimits.topicListPage : asked, configuration.topicListPageSize)
        let start = request.query["pageToken"].map { Int($0) } ?? 0
        guard let start, start >= 0 else {
            return EmulatorResponse.googleError(400, "INVALID_ARGUMENT", "Invalid pageToken.").counting(items: 1, codes: ["INVALID_ARGUMENT"])
        }
        guard let topics = state.withLock({ $0.topics(of: registration, project: project) }) else {
            return EmulatorResponse.googleError(404, "NOT_FOUND", "Requested entity was not found.", fcmErrorCode: "UNREGISTERED").counting(
                items: 1, codes: ["NOT_FOUND"])
        }
        let page = topics.dropFirst(start).prefix(pageSize)
        let next = start + page.count < topics.count ? String(start + page.count) : nil
        let list = TopicSubscriptionList(
            topicSubscriptions: page.isEmpty
                ? nil : page.map { TopicSubscriptionList.Subscription(name: "projects/\(project)/registrations/\(registration)/topicSubscriptions/\($0)") },
            nextPageToken: next)
        return EmulatorResponse.json(list).counting(items: 1, codes: ["OK"])
    }

    /// §3 `DELETE /v1/project/{p}/instanceId/{id}`.
    func deleteInstance(pathProject: String, id: String, project: String) -> EmulatorResponse {
        guard let project = self.project(ofPath: pathProject, caller: project) else {
            // The caller's permission, not this id's: Google's IAM refusal names neither.
            return EmulatorResponse.googleError(403, "PERMISSION_DENIED", "The caller does not have permission").counting(items: 0)
        }
        if let injected = faults.itemErrors(count: 1)[0] {
            // An injected per-item fault is this id's: its answer names the id, as the API's do.
            return EmulatorResponse.error(Self.status(forItemError: injected), "Instance ID \"\(id)\": \(injected)").counting(items: 1, codes: [injected])
        }
        let status = state.withLock { $0.deleteInstallation(id, project: project) }
        let text: String
        switch status {
        case 200: return EmulatorResponse(status: 200).counting(items: 1, codes: ["OK"])
        case 400: text = "Instance ID \"\(id)\": malformed instance id argument"
        case 403: text = "Instance ID \"\(id)\": project does not match instance ID"
        case 404: text = "Instance ID \"\(id)\": failed to find the instance id"
        default: text = "Instance ID \"\(id)\": already deleted"
        }
        return EmulatorResponse.error(status, text).counting(items: 1, codes: [String(status)])
    }

    /// The project a call of `caller`'s credentials that names `named` acts on: `named`, when it
    /// is the caller's own or one of `EmulatorConfiguration.grantedProjects`; nil (403) otherwise.
    func project(ofPath named: String, caller: String) -> String? {
        named == caller || configuration.grantedProjects.contains(named) ? named : nil
    }

    /// §4 `POST /fcm/notification` (create/add/remove) and `GET` (retrieve). Injected item
    /// errors fail the changes (a `POST`), never the lookups.
    func deviceGroup(_ request: EmulatorRequest, project: String) -> EmulatorResponse {
        guard let header = request.headers["project_id"] else {
            return EmulatorResponse.error(400, "project_id header is required").counting(items: 0)
        }
        guard let project = header == projectNumber(of: project) ? project : self.project(ofPath: header, caller: project) else {
            return EmulatorResponse.error(403, "project_id \(header) does not match the credentials").counting(items: 0)
        }
        if request.method == "GET", let key = request.query["notification_key"] {
            // §6 the export: the members of the group `key` belongs to.
            guard let members = state.withLock({ $0.groups.members(key: key, project: project) }) else {
                return EmulatorResponse.error(400, DeviceGroups.Refusal.notFound.message).counting(items: 1, codes: [DeviceGroups.Refusal.notFound.message])
            }
            return EmulatorResponse.json(DeviceGroupExport(notificationKey: key, registrationIDs: members)).counting(items: 1, codes: ["OK"])
        }
        if request.method == "GET" {
            guard let name = request.query["notification_key_name"], !name.isEmpty else {
                return EmulatorResponse.error(400, "notification_key_name is required").counting(items: 0)
            }
            return groupAnswer(state.withLock { $0.groups.retrieve(name: name, project: project) }, items: 0)
        }
        guard let body = try? JSONDecoder().decode(DeviceGroupRequest.self, from: request.body) else {
            return EmulatorResponse.error(400, "invalid JSON body").counting(items: 0)
        }
        let members = body.registrationIDs
        guard !members.isEmpty, members.count <= APILimits.groupMembers else {
            return EmulatorResponse.error(400, "registration_ids must hold 1 to \(APILimits.groupMembers) tokens").counting(items: members.count)
        }
        if let injected = faults.itemErrors(count: 1)[0] {
            // The change fails, nothing changed; NOT_FOUND in the API's words for a group's key.
            let notFound = injected == "NOT_FOUND"
            return EmulatorResponse.error(notFound ? 400 : Self.status(forItemError: injected), notFound ? DeviceGroups.Refusal.notFound.message : injected)
                .counting(items: members.count, codes: [injected])
        }
        let result: Result<String, DeviceGroups.Refusal> = state.withLock { state in
            switch (body.operation, body.notificationKey) {
            case ("create", _): return state.groups.create(name: body.notificationKeyName, members: members, project: project)
            case ("add", let key?): return state.groups.add(name: body.notificationKeyName, key: key, members: members, project: project)
            case ("remove", let key?): return state.groups.remove(name: body.notificationKeyName, key: key, members: members, project: project)
            case ("add", nil), ("remove", nil): return .failure(DeviceGroups.Refusal(message: "notification_key is required"))
            default: return .failure(DeviceGroups.Refusal(message: "unknown operation '\(body.operation)'"))
            }
        }
        return groupAnswer(result, items: members.count)
    }

    private func groupAnswer(_ result: Result<String, DeviceGroups.Refusal>, items: Int) -> EmulatorResponse {
        switch result {
        case .success(let key): EmulatorResponse.json(DeviceGroupResponse(notificationKey: key)).counting(items: items, codes: ["OK"])
        case .failure(let refusal): EmulatorResponse.error(400, refusal.message).counting(items: items, codes: [refusal.message])
        }
    }
}
