import Foundation
import InstanceAPI

extension EmulatorBackend {
    /// The admin API, separate from Google's paths, under `/emulator/v1/`:
    /// `POST seed`, `GET tokens/{t}`, `GET topics/{topic}`, `GET installations/{id}`,
    /// `GET groups/{name}`, `GET stats`, `GET|PUT faults`, `POST revoke-tokens`, `POST keys`.
    func admin(_ request: EmulatorRequest) -> EmulatorResponse {
        let p = Array(request.path.dropFirst(2))
        guard request.path.count >= 3, request.path[1] == "v1" else { return .error(404, "admin endpoints are under /emulator/v1/") }
        switch (request.method, p.first ?? "", p.count) {
        case ("POST", "seed", 1):
            guard let seed = try? JSONDecoder().decode(SeedRequest.self, from: request.body) else { return .error(400, "body must be a SeedRequest") }
            self.seed(seed)
            return .json(["tokens": seed.tokens.count, "installations": seed.installations.count])
        case ("GET", "tokens", 2):
            guard let token = tokenState(p[1]) else { return .error(404, "unknown token \(p[1])") }
            return .json(token)
        case ("GET", "topics", 2):
            return .json(TopicState(topic: p[1], tokens: subscribers(of: p[1])))
        case ("GET", "installations", 2):
            guard let deleted = installationDeleted(p[1]) else { return .error(404, "unknown installation \(p[1])") }
            return .json(InstallationState(id: p[1], deleted: deleted))
        case ("GET", "groups", 2):
            guard let members = groupMembers(p[1]) else { return .error(404, "no group \(p[1])") }
            return .json(GroupState(name: p[1], members: members))
        case ("GET", "stats", 1):
            return .json(stats)
        case ("GET", "faults", 1):
            return .json(faultPlan)
        case ("PUT", "faults", 1):
            guard let plan = try? JSONDecoder().decode(FaultPlan.self, from: request.body) else { return .error(400, "body must be a FaultPlan") }
            do { try setFaults(plan) } catch { return .error(400, error.description) }
            return .json(plan)
        case ("POST", "revoke-tokens", 1):
            revokeAccessTokens()
            return .json(["revoked": true])
        default:
            return .error(404, "no admin endpoint \(request.method) /\(request.path.joined(separator: "/"))")
        }
    }

    /// A token as the emulator sees it.
    public func tokenState(_ token: String) -> TokenState? {
        state.withLock { state in
            state.tokens[token].map {
                TokenState(
                    token: token, project: $0.project, application: $0.application, platform: $0.platform, topics: $0.topics.keys.sorted(), deleted: $0.deleted)
            }
        }
    }

    /// Tokens subscribed to `topic` in the emulator's project, sorted.
    public func subscribers(of topic: String) -> [String] {
        state.withLock { $0.topicMembers[configuration.projectID + "|" + topic].map { $0.sorted() } ?? [] }
    }

    /// Whether an installation was deleted; nil when it was never known.
    public func installationDeleted(_ id: String) -> Bool? {
        state.withLock { $0.installations[id]?.deleted }
    }

    /// The members of a device group of the emulator's project; nil when there is no such group.
    public func groupMembers(_ name: String) -> [String]? {
        state.withLock { $0.groups.group(name: name, project: configuration.projectID)?.members }
    }

    /// Marks registration tokens deleted, as if their apps were uninstalled.
    public func forgetTokens(_ tokens: [String]) {
        state.withLock { state in
            for token in tokens { state.forget(token, project: state.tokens[token]?.project ?? configuration.projectID) }
        }
    }
}
