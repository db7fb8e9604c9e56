import Foundation

/// One device group as `groups.export` found it: the record the worker writes to the pipeline's
/// compacted export topic, keyed by `group`, so that the latest export of each group stays and any
/// Kafka consumer can load the groups into the user's own store (api-reference §6).
///
/// Wire format (JSON, sorted keys, ISO 8601 time):
/// `{"exportedAt": "…", "group": "appUser-Chris", "members": ["t1", "t2"], "notificationKey": "APA91…", "requestId": "exp-1"}`.
public struct GroupExport: Sendable, Hashable, Codable {
    /// The group as the request named it: its notification key name, or its key (`groupsBy`).
    public var group: String
    /// A valid notification key of the group.
    public var notificationKey: String
    /// The group's registration tokens when it was exported.
    public var members: [String]
    /// When the worker read them.
    public var exportedAt: Date
    /// The request that exported it.
    public var requestID: String

    /// An export.
    public init(group: String, notificationKey: String, members: [String], exportedAt: Date, requestID: String) {
        self.group = group
        self.notificationKey = notificationKey
        self.members = members
        self.exportedAt = exportedAt
        self.requestID = requestID
    }

    enum CodingKeys: String, CodingKey {
        case group, notificationKey, members, exportedAt
        case requestID = "requestId"
    }

    /// The record's key: the group, as the request named it.
    public var recordKey: [UInt8] { Array(group.utf8) }

    /// The record's value.
    public func wireBytes() throws -> [UInt8] { Array(try Outcome.encoder().encode(self)) }

    /// Reads a record's value back.
    public static func decode(_ bytes: [UInt8]) throws -> GroupExport { try Outcome.decoder().decode(GroupExport.self, from: Data(bytes)) }
}
