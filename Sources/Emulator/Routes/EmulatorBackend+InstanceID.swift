import Foundation
import InstanceAPI
import WireJSON

extension EmulatorBackend {
    /// §2.1 `GET /iid/info/{token}`.
    func instanceInfo(_ token: String, _ request: EmulatorRequest, project: String) -> EmulatorResponse {
        if let injected = faults.itemErrors(count: 1)[0] {
            return EmulatorResponse.error(Self.status(forItemError: injected), "\(injected) for token \(token)").counting(items: 1, codes: [injected])
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
        guard let info else { return EmulatorResponse.error(404, "No information found about this instance id.").counting(items: 1, codes: ["NOT_FOUND"]) }
        guard owner == project else {
            return EmulatorResponse.error(403, "Token \(token): authorization does not match the authorizedEntity of this token").counting(
                items: 1, codes: ["PERMISSION_DENIED"])
        }
        return EmulatorResponse.json(info).counting(items: 1, codes: ["OK"])
    }

    /// §2.2 `POST /iid/v1/{token}/rel/topics/{topic}`.
    func relation(_ token: String, _ topic: String, _ request: EmulatorRequest, project: String) -> EmulatorResponse {
        guard (try? APILimits.topicName(topic)) != nil else { return EmulatorResponse.error(400, "InvalidTopicName: \(topic)").counting(items: 0) }
        if let injected = faults.itemErrors(count: 1)[0] {
            return EmulatorResponse.error(Self.status(forItemError: injected), injected).counting(items: 1, codes: [injected])
        }
        let today = Self.today
        let problem = state.withLock { $0.subscribe(token, to: topic, project: project, today: today) }
        switch problem {
        case nil: return EmulatorResponse.json([String: String]()).counting(items: 1, codes: ["OK"])
        case "NOT_FOUND": return EmulatorResponse.error(404, "NOT_FOUND").counting(items: 1, codes: ["NOT_FOUND"])
        case let code?: return EmulatorResponse.error(400, code).counting(items: 1, codes: [code])
        }
    }

    /// §2.3 batchAdd / batchRemove: 400 for a malformed call, else one result per token in order.
    func topicBatch(_ api: BackendAPI, _ request: EmulatorRequest, project: String, throttled: Bool) -> EmulatorResponse {
        let body: TopicBatchRequest
        do { body = try TopicBatchRequest(jsonBody: request.body) } catch {
            return EmulatorResponse.error(400, "InvalidRequest: \(error); the body must be {\"to\": \"/topics/NAME\", \"registration_tokens\": [...]}")
                .counting(items: 0)
        }
        guard body.to.hasPrefix("/topics/"), let topic = try? APILimits.topicName(body.to) else {
            return EmulatorResponse.error(400, "InvalidTopicName: \(body.to)").counting(items: 0)
        }
        let tokens = body.registrationTokens
        guard !tokens.isEmpty, tokens.count <= APILimits.topicBatch else {
            return EmulatorResponse.error(400, "InvalidListOfTokens: between 1 and \(APILimits.topicBatch) tokens, got \(tokens.count)").counting(
                items: tokens.count)
        }
        if throttled {
            let codes = Array(repeating: "RESOURCE_EXHAUSTED", count: tokens.count)
            return EmulatorResponse(status: 200, body: TopicBatchResponse(results: codes.map { .init(error: $0) }).jsonBody()).counting(
                items: tokens.count, codes: codes)
        }
        let injected = faults.itemErrors(count: tokens.count)
        let today = Self.today
        let results: [String?] = state.withLock { state in
            let subscription = api == .batchAdd ? state.subscription(to: topic, today: today) : nil
            return zip(tokens, injected).map { token, fault in
                if let fault { return fault }
                if let subscription { return state.subscribe(token, subscription, project: project) }
                return state.unsubscribe(token, from: topic, project: project)
            }
        }
        return EmulatorResponse(status: 200, body: TopicBatchResponse(results: results.map { .init(error: $0) }).jsonBody()).counting(
            items: tokens.count, codes: results.map { $0 ?? "OK" })
    }

    /// §2.4 batchImport: one entry per APNs token in order.
    func batchImport(_ request: EmulatorRequest, project: String, throttled: Bool) -> EmulatorResponse {
        guard let body = try? JSONDecoder().decode(ImportRequest.self, from: request.body) else {
            return EmulatorResponse.error(400, "InvalidRequest: the body must be {\"application\", \"sandbox\", \"apns_tokens\"}").counting(items: 0)
        }
        guard !body.application.isEmpty else { return EmulatorResponse.error(400, "InvalidApplication: empty").counting(items: 0) }
        let tokens = body.apnsTokens
        guard !tokens.isEmpty, tokens.count <= APILimits.importBatch else {
            return EmulatorResponse.error(400, "InvalidListOfTokens: between 1 and \(APILimits.importBatch) APNs tokens, got \(tokens.count)").counting(
                items: tokens.count)
        }
        let injected = throttled ? Array(repeating: "RESOURCE_EXHAUSTED", count: tokens.count) : faults.itemErrors(count: tokens.count)
        let entries: [ImportResponse.Entry] = state.withLock { state in
            zip(tokens, injected).map { token, fault in
                if let fault { return ImportResponse.Entry(apnsToken: token, status: fault == "INTERNAL" ? "Internal Server Error" : fault) }
                return state.importToken(token, application: body.application, sandbox: body.sandbox, project: project)
            }
        }
        // The emulator's own account of what it answered, independent of the client's classifier.
        let codes = entries.map { entry in
            switch entry.status {
            case "Internal Server Error": "INTERNAL"
            case "Invalid APNs token": "INVALID_ARGUMENT"
            default: entry.status  // OK, or an injected code verbatim
            }
        }
        return EmulatorResponse(status: 200, body: Data(ImportResponse(results: entries).jsonBytes())).counting(items: tokens.count, codes: codes)
    }

    /// The number reported as `authorizedEntity` for `project`.
    func projectNumber(of project: String) -> String {
        project == configuration.projectID ? configuration.projectNumber : project
    }
}
