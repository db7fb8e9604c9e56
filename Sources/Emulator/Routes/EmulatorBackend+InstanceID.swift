import Foundation
import InstanceAPI

extension EmulatorBackend {
    /// IID calls with an OAuth2 token must say `access_token_auth: true`.
    private func needsAccessTokenAuth(_ request: EmulatorRequest, _ api: BackendAPI) -> EmulatorResponse? {
        guard request.headers["access_token_auth"] == "true" else {
            return record(api, items: 0, .error(401, "access_token_auth: true is required with an OAuth2 access token"))
        }
        return nil
    }

    /// §2.1 `GET /iid/info/{token}`.
    func instanceInfo(_ token: String, _ request: EmulatorRequest, project: String) -> EmulatorResponse {
        if let refusal = needsAccessTokenAuth(request, .instanceInfo) { return refusal }
        if let injected = faults.itemErrors(count: 1)[0] {
            return record(.instanceInfo, items: 1, codes: [injected], .error(Self.status(forItemError: injected), injected))
        }
        let details = request.query["details"] == "true"
        let (info, owner) = state.withLock { state in
            (
                state.info(
                    token, project: state.tokens[token]?.project ?? project, projectNumber: projectNumber(of: state.tokens[token]?.project ?? project),
                    details: details),
                state.tokens[token]?.project
            )
        }
        guard let info else { return record(.instanceInfo, items: 1, codes: ["NOT_FOUND"], .error(404, "No information found about this instance id.")) }
        guard owner == project else {
            return record(.instanceInfo, items: 1, codes: ["PERMISSION_DENIED"], .error(403, "authorization does not match the authorizedEntity of this token"))
        }
        return record(.instanceInfo, items: 1, codes: ["OK"], .json(info))
    }

    /// §2.2 `POST /iid/v1/{token}/rel/topics/{topic}`.
    func relation(_ token: String, _ topic: String, _ request: EmulatorRequest, project: String) -> EmulatorResponse {
        if let refusal = needsAccessTokenAuth(request, .topicRelation) { return refusal }
        guard (try? APILimits.topicName(topic)) != nil else { return record(.topicRelation, items: 0, .error(400, "InvalidTopicName: \(topic)")) }
        if let injected = faults.itemErrors(count: 1)[0] {
            return record(.topicRelation, items: 1, codes: [injected], .error(Self.status(forItemError: injected), injected))
        }
        let today = Self.today
        let problem = state.withLock { $0.subscribe(token, to: topic, project: project, today: today) }
        switch problem {
        case nil: return record(.topicRelation, items: 1, codes: ["OK"], .json([String: String]()))
        case "NOT_FOUND": return record(.topicRelation, items: 1, codes: ["NOT_FOUND"], .error(404, "NOT_FOUND"))
        case let code?: return record(.topicRelation, items: 1, codes: [code], .error(400, code))
        }
    }

    /// §2.3 batchAdd / batchRemove: 400 for a malformed call, else one result per token in order.
    func topicBatch(_ api: BackendAPI, _ request: EmulatorRequest, project: String, throttled: Bool) -> EmulatorResponse {
        if let refusal = needsAccessTokenAuth(request, api) { return refusal }
        let body: TopicBatchRequest
        do { body = try TopicBatchRequest(jsonBody: request.body) } catch {
            return record(api, items: 0, .error(400, "InvalidRequest: \(error); the body must be {\"to\": \"/topics/NAME\", \"registration_tokens\": [...]}"))
        }
        guard body.to.hasPrefix("/topics/"), let topic = try? APILimits.topicName(body.to) else {
            return record(api, items: 0, .error(400, "InvalidTopicName: \(body.to)"))
        }
        let tokens = body.registrationTokens
        guard !tokens.isEmpty, tokens.count <= APILimits.topicBatch else {
            return record(api, items: tokens.count, .error(400, "InvalidListOfTokens: between 1 and \(APILimits.topicBatch) tokens, got \(tokens.count)"))
        }
        if throttled {
            let codes = Array(repeating: "RESOURCE_EXHAUSTED", count: tokens.count)
            return record(
                api, items: tokens.count, codes: codes,
                EmulatorResponse(status: 200, body: TopicBatchResponse(results: codes.map { .init(error: $0) }).jsonBody()))
        }
        let injected = faults.itemErrors(count: tokens.count)
        let today = Self.today
        let results: [String?] = state.withLock { state in
            zip(tokens, injected).map { token, fault in
                if let fault { return fault }
                return api == .batchAdd
                    ? state.subscribe(token, to: topic, project: project, today: today)
                    : state.unsubscribe(token, from: topic, project: project)
            }
        }
        return record(
            api, items: tokens.count, codes: results.map { $0 ?? "OK" },
            EmulatorResponse(status: 200, body: TopicBatchResponse(results: results.map { .init(error: $0) }).jsonBody()))
    }

    /// §2.4 batchImport: one entry per APNs token in order.
    func batchImport(_ request: EmulatorRequest, project: String, throttled: Bool) -> EmulatorResponse {
        if let refusal = needsAccessTokenAuth(request, .batchImport) { return refusal }
        guard let body = try? JSONDecoder().decode(ImportRequest.self, from: request.body) else {
            return record(.batchImport, items: 0, .error(400, "InvalidRequest: the body must be {\"application\", \"sandbox\", \"apns_tokens\"}"))
        }
        guard !body.application.isEmpty else { return record(.batchImport, items: 0, .error(400, "InvalidApplication: empty")) }
        let tokens = body.apnsTokens
        guard !tokens.isEmpty, tokens.count <= APILimits.importBatch else {
            return record(
                .batchImport, items: tokens.count, .error(400, "InvalidListOfTokens: between 1 and \(APILimits.importBatch) APNs tokens, got \(tokens.count)"))
        }
        let injected = throttled ? Array(repeating: "RESOURCE_EXHAUSTED", count: tokens.count) : faults.itemErrors(count: tokens.count)
        let entries: [ImportResponse.Entry] = state.withLock { state in
            zip(tokens, injected).map { token, fault in
                if let fault { return ImportResponse.Entry(apnsToken: token, status: fault == "INTERNAL" ? "Internal Server Error" : fault) }
                return state.importToken(token, application: body.application, sandbox: body.sandbox, project: project)
            }
        }
        let codes = entries.map { ResultClassifier.importStatus($0.status).code.rawValue }
        return record(.batchImport, items: tokens.count, codes: codes, .json(ImportResponse(results: entries)))
    }

    /// The number reported as `authorizedEntity` for `project`.
    func projectNumber(of project: String) -> String {
        project == configuration.projectID ? configuration.projectNumber : project
    }
}
