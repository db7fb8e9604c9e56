import Foundation

extension InstanceAPIClient {
    /// §2.1: what the backend knows about a token; `details` adds its topic subscriptions.
    /// An unknown token is the item's `NOT_FOUND`.
    public func instanceInfo(token: String, details: Bool = false) async throws(InstanceAPIError) -> ItemOutcome<InstanceInfo> {
        try APILimits.identifier(token, field: "token")
        let url = configuration.iidBaseURL + "/iid/info/" + Self.segment(token) + (details ? "?details=true" : "")
        let answer = try await send(.instanceInfo, .GET, url, headers: [("access_token_auth", "true")])
        if answer.status == 200 { return .success(try Self.decode(InstanceInfo.self, answer, api: .instanceInfo)) }
        switch ResultClassifier.instanceID(.instanceInfo, item: token, status: answer.status, body: answer.body, retryAfter: answer.retryAfter) {
        case .item(let result): return .failure(result)
        case .call(let error): throw error
        }
    }

    /// §3: deletes an installation (FID) or instance ID and its data. Deleting what is already
    /// gone is `ALREADY_ABSENT`, a success, but only on the API's own answer saying so
    /// (`ResultClassifier.deleteInstance`).
    public func deleteInstance(id: String) async throws(InstanceAPIError) -> ItemResult {
        try APILimits.identifier(id, field: "installation id")
        let url = configuration.installationsBaseURL + "/v1/project/\(Self.segment(projectID))/instanceId/" + Self.segment(id)
        let answer = try await send(.deleteInstance, .DELETE, url)
        switch ResultClassifier.deleteInstance(id: id, status: answer.status, body: answer.body, retryAfter: answer.retryAfter) {
        case .item(let result): return result
        case .call(let error): throw error
        }
    }
}
