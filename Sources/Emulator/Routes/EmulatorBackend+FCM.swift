import Foundation
import InstanceAPI

extension EmulatorBackend {
    /// §2.6 per-token subscribe / unsubscribe through the FCM v1 API.
    func fcmTopic(_ api: BackendAPI, pathProject: String, token: String, topic: String?, project: String) -> EmulatorResponse {
        guard pathProject == project else {
            return record(api, items: 0, .googleError(403, "PERMISSION_DENIED", "The caller does not have permission for project \(pathProject)."))
        }
        guard let topic, let name = try? APILimits.topicName(topic) else {
            return record(api, items: 1, codes: ["INVALID_ARGUMENT"], .googleError(400, "INVALID_ARGUMENT", "Invalid topic name '\(topic ?? "")'."))
        }
        if let injected = faults.itemErrors(count: 1)[0] {
            return record(api, items: 1, codes: [injected], .googleError(Self.status(forItemError: injected), injected, "Injected item failure."))
        }
        let today = Self.today
        let problem: String? = state.withLock { state in
            if api == .fcmSubscribe {
                return state.subscribe(token, to: name, project: project, today: today)
            }
            // allow_missing=true: a token that is not subscribed, or gone, is fine.
            if state.problem(with: token, project: project) == "NOT_FOUND" { return nil }
            return state.unsubscribe(token, from: name, project: project)
        }
        switch problem {
        case nil:
            return record(api, items: 1, codes: ["OK"], .json([String: String]()))
        case "NOT_FOUND":
            return record(api, items: 1, codes: ["NOT_FOUND"], .googleError(404, "NOT_FOUND", "Requested entity was not found.", fcmErrorCode: "UNREGISTERED"))
        case "TOO_MANY_TOPICS":
            return record(api, items: 1, codes: ["TOO_MANY_TOPICS"], .googleError(400, "INVALID_ARGUMENT", "Too many topics.", fcmErrorCode: "TOO_MANY_TOPICS"))
        case let code?:
            return record(
                api, items: 1, codes: [code],
                .googleError(400, "INVALID_ARGUMENT", "The registration token is not a valid FCM registration token.", fcmErrorCode: "INVALID_ARGUMENT"))
        }
    }

    /// §3 `DELETE /v1/project/{p}/instanceId/{id}`.
    func deleteInstance(pathProject: String, id: String, project: String) -> EmulatorResponse {
        guard pathProject == project else {
            return record(.deleteInstance, items: 0, .error(403, "Instance ID \"\(id)\": project does not match or caller lacks permission"))
        }
        if let injected = faults.itemErrors(count: 1)[0] {
            return record(.deleteInstance, items: 1, codes: [injected], .error(Self.status(forItemError: injected), injected))
        }
        let status = state.withLock { $0.deleteInstallation(id, project: project) }
        let text: String
        switch status {
        case 200: return record(.deleteInstance, items: 1, codes: ["OK"], EmulatorResponse(status: 200))
        case 400: text = "Instance ID \"\(id)\": malformed instance id argument"
        case 403: text = "Instance ID \"\(id)\": project does not match instance ID"
        case 404: text = "Instance ID \"\(id)\": failed to find the instance id"
        default: text = "Instance ID \"\(id)\": already deleted"
        }
        return record(.deleteInstance, items: 1, codes: [String(status)], .error(status, text))
    }

    /// §4 `POST /fcm/notification` (create/add/remove) and `GET` (retrieve).
    func deviceGroup(_ request: EmulatorRequest, project: String) -> EmulatorResponse {
        guard let header = request.headers["project_id"] else {
            return record(.deviceGroup, items: 0, .error(400, "project_id header is required"))
        }
        guard header == project || header == projectNumber(of: project) else {
            return record(.deviceGroup, items: 0, .error(403, "project_id \(header) does not match the credentials"))
        }
        if request.method == "GET" {
            guard let name = request.query["notification_key_name"], !name.isEmpty else {
                return record(.deviceGroup, items: 0, .error(400, "notification_key_name is required"))
            }
            return groupAnswer(state.withLock { $0.groups.retrieve(name: name, project: project) }, items: 0)
        }
        guard let body = try? JSONDecoder().decode(DeviceGroupRequest.self, from: request.body) else {
            return record(.deviceGroup, items: 0, .error(400, "invalid JSON body"))
        }
        let members = body.registrationIDs
        guard !members.isEmpty, members.count <= APILimits.groupMembers else {
            return record(.deviceGroup, items: members.count, .error(400, "registration_ids must hold 1 to \(APILimits.groupMembers) tokens"))
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
        case .success(let key): record(.deviceGroup, items: items, codes: ["OK"], .json(DeviceGroupResponse(notificationKey: key)))
        case .failure(let refusal): record(.deviceGroup, items: items, codes: [refusal.message], .error(400, refusal.message))
        }
    }

    /// §4 `POST /fcm/send` to a group: members with live tokens are reached.
    func groupSend(_ request: EmulatorRequest, project: String) -> EmulatorResponse {
        guard let body = try? JSONDecoder().decode(GroupSendRequest.self, from: request.body) else {
            return record(.groupSend, items: 0, .error(400, "invalid JSON body"))
        }
        let (members, failed): ([String]?, [String]) = state.withLock { state in
            guard let members = state.groups.members(key: body.to, project: project) else { return (nil, []) }
            return (members, members.filter { state.problem(with: $0, project: project) != nil })
        }
        guard let members else { return record(.groupSend, items: 0, .error(400, "notification_key not found")) }
        let response = GroupSendResponse(success: members.count - failed.count, failure: failed.count, failedRegistrationIDs: failed.isEmpty ? nil : failed)
        return record(.groupSend, items: members.count, .json(response))
    }
}
