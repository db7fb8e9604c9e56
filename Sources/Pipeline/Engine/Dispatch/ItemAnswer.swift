import InstanceAPI

/// One item's answer from the backend: its result, and the value the backend returned for it
/// (the registration token of an APNs import, a device group's notification key), if any.
public struct ItemAnswer: Sendable, Hashable {
    /// The item's result.
    public var result: ItemResult
    /// The value returned for the item, if the API returns one.
    public var value: String?
    /// What the backend listed for the item, if the API lists something: a registration's
    /// topics (`instances.info` with `details`), a group's members (`groups.export`).
    public var list: [String]?

    /// An answer.
    public init(_ result: ItemResult, value: String? = nil, list: [String]? = nil) {
        self.result = result
        self.value = value
        self.list = list
    }
}
