import Foundation
import NIOHTTP1

extension InstanceAPIClient {
    /// §2.3 batchAdd: subscribes up to 1,000 tokens to `topic`; one result per token, in order.
    public func batchAdd(topic: String, tokens: [String]) async throws(InstanceAPIError) -> [ItemResult] {
        try await topicBatch(.batchAdd, path: "/iid/v1:batchAdd", topic: topic, tokens: tokens)
    }

    /// §2.3 batchRemove: unsubscribes up to 1,000 tokens from `topic`; one result per token.
    public func batchRemove(topic: String, tokens: [String]) async throws(InstanceAPIError) -> [ItemResult] {
        try await topicBatch(.batchRemove, path: "/iid/v1:batchRemove", topic: topic, tokens: tokens)
    }

    private func topicBatch(_ api: BackendAPI, path: String, topic: String, tokens: [String]) async throws(InstanceAPIError) -> [ItemResult] {
        let name = try APILimits.topicName(topic)
        try APILimits.items(tokens, field: "registration_tokens", limit: APILimits.topicBatch)
        let answer = try await send(
            api, .POST, configuration.iidBaseURL + path, json: TopicBatchRequest(topic: name, tokens: tokens).jsonBody(),
            headers: [("access_token_auth", "true")])
        guard answer.status == 200 else {
            throw ResultClassifier.callFailure(api, status: answer.status, message: answer.text, retryAfter: answer.retryAfter)
        }
        let response: TopicBatchResponse
        do { response = try TopicBatchResponse(jsonBody: answer.body) } catch {
            throw .malformedResponse(api: api, status: 200, message: "\(error): \(answer.text.prefix(200))")
        }
        guard response.results.count == tokens.count else {
            throw .malformedResponse(api: api, status: 200, message: "\(response.results.count) results for \(tokens.count) tokens")
        }
        return response.results.map { ResultClassifier.batchItem(error: $0.error) }
    }

    /// §2.2: subscribes one token to one topic.
    public func subscribeOne(token: String, topic: String) async throws(InstanceAPIError) -> ItemResult {
        let name = try APILimits.topicName(topic)
        try APILimits.identifier(token, field: "token")
        let url = configuration.iidBaseURL + "/iid/v1/" + Self.segment(token) + "/rel/topics/" + Self.segment(name)
        let answer = try await send(.topicRelation, .POST, url, json: Data("{}".utf8), headers: [("access_token_auth", "true")])
        if answer.status == 200 { return .ok }
        switch ResultClassifier.instanceID(.topicRelation, status: answer.status, body: answer.text, retryAfter: answer.retryAfter) {
        case .item(let result): return result
        case .call(let error): throw error
        }
    }

    /// §2.6: subscribes one token through the FCM v1 API; an existing subscription is `OK`.
    public func fcmSubscribe(token: String, topic: String) async throws(InstanceAPIError) -> ItemResult {
        let name = try APILimits.topicName(topic)
        try APILimits.identifier(token, field: "token")
        let url =
            configuration.fcmBaseURL + "/v1/projects/\(Self.segment(projectID))/registrations/" + Self.segment(token)
            + "/topicSubscriptions?topic_name=" + Self.segment(name)
        return try await fcmV1(.fcmSubscribe, .POST, url, body: Data("{}".utf8))
    }

    /// §2.6: unsubscribes one token through the FCM v1 API (`allow_missing=true`).
    public func fcmUnsubscribe(token: String, topic: String) async throws(InstanceAPIError) -> ItemResult {
        let name = try APILimits.topicName(topic)
        try APILimits.identifier(token, field: "token")
        let url =
            configuration.fcmBaseURL + "/v1/projects/\(Self.segment(projectID))/registrations/" + Self.segment(token)
            + "/topicSubscriptions/" + Self.segment(name) + "?allow_missing=true"
        return try await fcmV1(.fcmUnsubscribe, .DELETE, url, body: nil)
    }

    private func fcmV1(_ api: BackendAPI, _ method: HTTPMethod, _ url: String, body: Data?) async throws(InstanceAPIError) -> ItemResult {
        let answer = try await send(api, method, url, json: body, headers: [("X-GOOG-API-FORMAT-VERSION", "2")])
        if (200..<300).contains(answer.status) { return .ok }
        switch ResultClassifier.fcmV1(api, status: answer.status, body: answer.body, retryAfter: answer.retryAfter) {
        case .item(let result): return result
        case .call(let error): throw error
        }
    }
}
