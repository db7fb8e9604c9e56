import Foundation
import NIOCore
import NIOHTTP1
import WireJSON

extension InstanceAPIClient {
    /// §2.3 batchAdd: subscribes up to 1,000 tokens to `topic`; one result per token, in order.
    /// An answer whose every token is `INTERNAL` or `UNAVAILABLE` throws `.failedEveryItem` (the
    /// backend failing, as a 500 says), as do batchRemove and batchImport.
    public func batchAdd(topic: String, tokens: [String]) async throws(InstanceAPIError) -> [ItemResult] {
        Array(try await batchAdd(topic: topic, tokens: PackedStrings(tokens)))
    }

    /// §2.3 batchAdd for packed tokens, whose body is written from their bytes.
    /// The results come as runs of equal adjacent results.
    public func batchAdd(topic: String, tokens: PackedStrings) async throws(InstanceAPIError) -> RunLengthList<ItemResult> {
        try await topicBatch(.batchAdd, path: "/iid/v1:batchAdd", topic: topic, tokens: tokens)
    }

    /// §2.3 batchRemove: unsubscribes up to 1,000 tokens from `topic`; one result per token.
    public func batchRemove(topic: String, tokens: [String]) async throws(InstanceAPIError) -> [ItemResult] {
        Array(try await batchRemove(topic: topic, tokens: PackedStrings(tokens)))
    }

    /// §2.3 batchRemove for packed tokens, whose body is written from their bytes.
    /// The results come as runs of equal adjacent results.
    public func batchRemove(topic: String, tokens: PackedStrings) async throws(InstanceAPIError) -> RunLengthList<ItemResult> {
        try await topicBatch(.batchRemove, path: "/iid/v1:batchRemove", topic: topic, tokens: tokens)
    }

    private func topicBatch(
        _ api: BackendAPI, path: String, topic: String, tokens: PackedStrings
    ) async throws(InstanceAPIError) -> RunLengthList<ItemResult> {
        let name = try APILimits.topicName(topic)
        try APILimits.items(tokens, field: "registration_tokens", limit: APILimits.topicBatch)
        let answer = try await send(
            api, .POST, configuration.iidBaseURL + path, json: ByteBuffer(bytes: TopicBatchRequest(topic: name, tokens: tokens).jsonBytes()),
            headers: [("access_token_auth", "true")])
        guard answer.status == 200 else {
            throw ResultClassifier.callFailure(api, status: answer.status, body: answer.body, retryAfter: answer.retryAfter)
        }
        let results: RunLengthList<TopicBatchResponse.Entry>
        do { results = try TopicBatchResponse.resultRuns(jsonBody: answer.body) } catch {
            throw .malformedResponse(api: api, status: 200, message: "\(error): \(answer.text)")
        }
        guard results.count == tokens.count else {
            throw .malformedResponse(api: api, status: 200, message: "\(results.count) results for \(tokens.count) tokens")
        }
        // Classified once per run of equal entries: most answers are one run of successes.
        let classified = results.mapRuns { ResultClassifier.batchItem(error: $0.error) }
        if let failure = ResultClassifier.backendFailure(api, results: classified) { throw failure }
        return classified
    }

    /// §2.2: subscribes one token to one topic.
    public func subscribeOne(token: String, topic: String) async throws(InstanceAPIError) -> ItemResult {
        let name = try APILimits.topicName(topic)
        try APILimits.identifier(token, field: "token")
        let url = configuration.iidBaseURL + "/iid/v1/" + Self.segment(token) + "/rel/topics/" + Self.segment(name)
        let answer = try await send(.topicRelation, .POST, url, json: ByteBuffer(string: "{}"), headers: [("access_token_auth", "true")])
        if answer.status == 200 {
            // §2.2: `200 {}`; JSON about anything else (`{"success": false}`) is no receipt.
            guard ResultClassifier.isEmptyAnswer(answer.body) else {
                throw .malformedResponse(api: .topicRelation, status: 200, message: "not the API's answer: \(answer.text)")
            }
            return .ok
        }
        switch ResultClassifier.instanceID(.topicRelation, item: token, status: answer.status, body: answer.body, retryAfter: answer.retryAfter) {
        case .item(let result): return result
        case .call(let error): throw error
        }
    }

    /// §2.6: subscribes one registration (an FCM token or a FID) through the FCM v1 API,
    /// idempotently: `PATCH …/topicSubscriptions/{topic}?allowMissing=true` creates the
    /// subscription or returns the existing one, so a repeat is `OK` (as is a 409 or a 400 saying
    /// `ALREADY_EXISTS`, should a backend answer so: `ResultClassifier.fcmV1`).
    public func fcmSubscribe(token: String, topic: String) async throws(InstanceAPIError) -> ItemResult {
        let name = try APILimits.topicName(topic)
        try APILimits.identifier(token, field: "registration")
        let resource = subscriptionsPath(registration: token) + "/" + Self.segment(name)
        // The body names the resource as it is (the URL carries it percent-encoded: a token's `:`
        // is `%3A` there, and `:` in the name); the answer must name it too.
        let subscription = "registrations/\(token)/topicSubscriptions/\(name)"
        let named = TopicSubscriptionList.Subscription(name: "projects/\(projectID)/" + subscription)
        return try await fcmV1(
            .fcmSubscribe, .PATCH, configuration.fcmBaseURL + resource + "?allowMissing=true", body: ByteBuffer(bytes: named.jsonBytes()),
            naming: subscription)
    }

    /// §2.6: unsubscribes one registration (an FCM token or a FID) through the FCM v1 API;
    /// `allow_missing=true` makes a subscription that is not there `OK`.
    public func fcmUnsubscribe(token: String, topic: String) async throws(InstanceAPIError) -> ItemResult {
        let name = try APILimits.topicName(topic)
        try APILimits.identifier(token, field: "registration")
        let url = configuration.fcmBaseURL + subscriptionsPath(registration: token) + "/" + Self.segment(name) + "?allow_missing=true"
        return try await fcmV1(.fcmUnsubscribe, .DELETE, url, body: nil, naming: nil)
    }

    /// §2.6: every topic one registration (an FCM token or a FID) is subscribed to, from the list
    /// call, following `nextPageToken` through all pages. An unknown registration is the item's
    /// `NOT_FOUND`, on the first page: a later page's refusal is about that page and fails the call
    /// (`TopicListing.registrationResult`). Pages that list more topics than one registration can hold
    /// (`APILimits.topicsPerInstance`), or a name that is no topic name, are a malformed answer, and
    /// no page is asked for after one call's timeout from the first (`TopicListing`). This is what replaces
    /// `iid/info?details=true` for topic lookups.
    public func fcmTopics(registration: String) async throws(InstanceAPIError) -> ItemOutcome<[String]> {
        try APILimits.identifier(registration, field: "registration")
        let base = configuration.fcmBaseURL + subscriptionsPath(registration: registration) + "?pageSize=\(APILimits.topicListPage)"
        var listing = TopicListing(registration: registration, start: .now, time: configuration.timeout)
        var pageToken: String?
        repeat {
            let url = base + (pageToken.map { "&pageToken=" + Self.segment($0) } ?? "")
            let answer = try await send(.fcmListTopics, .GET, url, headers: [("X-GOOG-API-FORMAT-VERSION", "2")])
            guard (200..<300).contains(answer.status) else {
                switch ResultClassifier.fcmV1(.fcmListTopics, status: answer.status, body: answer.body, retryAfter: answer.retryAfter) {
                case .item(let result): return .failure(try listing.registrationResult(result, status: answer.status))
                case .call(let error): throw error
                }
            }
            // The API's list is a 200: another 2xx (a proxy's 203) is not its page.
            guard answer.status == 200 else {
                throw .malformedResponse(api: .fcmListTopics, status: answer.status, message: "not the API's page: \(answer.text)")
            }
            pageToken = try listing.add(Self.decode(TopicSubscriptionList.self, answer, api: .fcmListTopics), status: answer.status, now: .now)
        } while pageToken != nil
        return .success(listing.topics)
    }

    /// `/v1/projects/{p}/registrations/{registration}/topicSubscriptions`, segments encoded.
    private func subscriptionsPath(registration: String) -> String {
        "/v1/projects/\(Self.segment(projectID))/registrations/" + Self.segment(registration) + "/topicSubscriptions"
    }

    /// One FCM v1 topic call; its 200 is a success only as `ResultClassifier.isSubscriptionAnswer`
    /// says for `resource` (the subscription a subscribe names; nil for an unsubscribe).
    private func fcmV1(_ api: BackendAPI, _ method: HTTPMethod, _ url: String, body: ByteBuffer?, naming resource: String?) async throws(InstanceAPIError)
        -> ItemResult
    {
        let answer = try await send(api, method, url, json: body, headers: [("X-GOOG-API-FORMAT-VERSION", "2")])
        if (200..<300).contains(answer.status) {
            // The subscription asked for, or an unsubscribe's `{}`: a page (a captive proxy's) or other JSON is no receipt.
            guard ResultClassifier.isSubscriptionAnswer(status: answer.status, body: answer.body, naming: resource) else {
                throw .malformedResponse(api: api, status: answer.status, message: "not the API's answer: \(answer.text)")
            }
            return .ok
        }
        switch ResultClassifier.fcmV1(api, status: answer.status, body: answer.body, retryAfter: answer.retryAfter) {
        case .item(let result): return result
        case .call(let error): throw error
        }
    }
}
