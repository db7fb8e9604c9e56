import Foundation

extension InstanceAPIClient {
    /// §4 create: a group of up to 20 tokens; returns its notification key. An existing name is
    /// `ALREADY_EXISTS`.
    public func createGroup(name: String, tokens: [String]) async throws(InstanceAPIError) -> ItemOutcome<String> {
        try await groupOperation("create", name: name, key: nil, tokens: tokens)
    }

    /// §4 add: adds tokens to a group; more than 20 members in all is `GROUP_FULL`.
    public func addToGroup(name: String, key: String, tokens: [String]) async throws(InstanceAPIError) -> ItemOutcome<String> {
        try await groupOperation("add", name: name, key: key, tokens: tokens)
    }

    /// §4 remove: removes tokens; a group left without members ceases to exist.
    public func removeFromGroup(name: String, key: String, tokens: [String]) async throws(InstanceAPIError) -> ItemOutcome<String> {
        try await groupOperation("remove", name: name, key: key, tokens: tokens)
    }

    /// §4 retrieve: a valid key for the group called `name` (it may look different each time).
    public func groupKey(name: String) async throws(InstanceAPIError) -> ItemOutcome<String> {
        try APILimits.identifier(name, field: "notification_key_name", isName: true)
        let url = configuration.fcmBaseURL + "/fcm/notification?notification_key_name=" + Self.segment(name)
        return try Self.groupAnswer(try await send(.deviceGroup, .GET, url, headers: groupHeaders))
    }

    /// §4, §6 the export: the registration tokens of the group `key` belongs to. A key of no
    /// group is the item's `NOT_FOUND`. Device groups, and this call, are turned down on
    /// 2027-09-29; their data is not kept after it.
    public func groupMembers(key: String) async throws(InstanceAPIError) -> ItemOutcome<[String]> {
        try APILimits.identifier(key, field: "notification_key")
        let url = configuration.fcmBaseURL + "/fcm/notification?notification_key=" + Self.segment(key)
        return try Self.exportAnswer(try await send(.groupExport, .GET, url, headers: groupHeaders))
    }

    /// The members in an export's `answer`: at most a group's worth, each a token an answer may
    /// carry (`APILimits.answeredToken`), else a malformed answer.
    static func exportAnswer(_ answer: Answer) throws(InstanceAPIError) -> ItemOutcome<[String]> {
        if answer.status == 200 {
            try Self.refuseErrorBeside(answer, api: .groupExport)
            let members = try Self.decode(DeviceGroupExport.self, answer, api: .groupExport).registrationIDs
            guard members.count <= APILimits.groupMembers else {
                throw .malformedResponse(
                    api: .groupExport, status: 200,
                    message: "\(members.count) registration_ids is not the API's answer (a group holds \(APILimits.groupMembers))")
            }
            for member in members { try APILimits.answeredToken(member, field: "registration_ids entry", api: .groupExport, status: 200) }
            return .success(members)
        }
        switch ResultClassifier.deviceGroup(status: answer.status, body: answer.body, retryAfter: answer.retryAfter) {
        case .item(let result): return .failure(result)
        case .call(let error): throw error
        }
    }

    private var groupHeaders: [(String, String)] {
        [("access_token_auth", "true"), ("project_id", configuration.senderID ?? projectID)]
    }

    private func groupOperation(_ operation: String, name: String, key: String?, tokens: [String]) async throws(InstanceAPIError) -> ItemOutcome<String> {
        try APILimits.identifier(name, field: "notification_key_name", isName: true)
        if let key { try APILimits.identifier(key, field: "notification_key") }
        try APILimits.items(tokens, field: "registration_ids", limit: APILimits.groupMembers)
        let body = encode(DeviceGroupRequest(operation: operation, notificationKeyName: name, notificationKey: key, registrationIDs: tokens))
        return try Self.groupAnswer(try await send(.deviceGroup, .POST, configuration.fcmBaseURL + "/fcm/notification", json: body, headers: groupHeaders))
    }

    /// The group's key in `answer`, a token an answer may carry (`APILimits.answeredToken`),
    /// else a malformed answer; or the item's failure.
    static func groupAnswer(_ answer: Answer) throws(InstanceAPIError) -> ItemOutcome<String> {
        if answer.status == 200 {
            try Self.refuseErrorBeside(answer, api: .deviceGroup)
            let key = try Self.decode(DeviceGroupResponse.self, answer, api: .deviceGroup).notificationKey
            try APILimits.answeredToken(key, field: "notification_key", api: .deviceGroup, status: 200)
            return .success(key)
        }
        switch ResultClassifier.deviceGroup(status: answer.status, body: answer.body, retryAfter: answer.retryAfter) {
        case .item(let result): return .failure(result)
        case .call(let error): throw error
        }
    }

    /// Refuses a 200 whose body is not a JSON object free of an `error` member
    /// (`ResultClassifier.isObjectAnswer`): a key or members beside an error are no success.
    private static func refuseErrorBeside(_ answer: Answer, api: BackendAPI) throws(InstanceAPIError) {
        guard ResultClassifier.isObjectAnswer(answer.body) else {
            throw .malformedResponse(
                api: api, status: 200, message: "not the API's answer (an error beside it, or no object): \(ResultClassifier.excerpt(answer.body))")
        }
    }
}
