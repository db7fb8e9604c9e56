import Foundation
import InstanceAPI

extension EmulatorBackend {
    /// A token as the emulator sees it.
    public func tokenState(_ token: String) -> TokenState? {
        state.withLock { state in
            state.tokens[token].map {
                TokenState(
                    token: token, project: $0.project, application: $0.application, platform: $0.platform, topics: state.subscribedTopics($0),
                    deleted: $0.deleted)
            }
        }
    }

    /// Tokens subscribed to `topic` in the emulator's project, sorted.
    public func subscribers(of topic: String) -> [String] {
        state.withLock { $0.subscribers(of: topic, project: configuration.projectID) }
    }

    /// Whether an installation was deleted; nil when it was never known.
    public func installationDeleted(_ id: String) -> Bool? {
        state.withLock { $0.installations[id]?.deleted }
    }

    /// The members of a device group of the emulator's project; nil when there is no such group.
    public func groupMembers(_ name: String) -> [String]? {
        state.withLock { $0.groups.group(name: name, project: configuration.projectID)?.members }
    }
}
