/// Why a record of the batch topic is not a manifest, naming the field at fault.
public struct BatchManifestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The field at fault, or nil when the record is not a JSON object at all.
    public var field: String?
    /// What is wrong with it.
    public var reason: String

    /// A refusal of `field` for `reason`.
    public init(field: String?, _ reason: String) {
        self.field = field
        self.reason = reason
    }

    public var description: String { "not a batch manifest: " + (field.map { "\($0): " } ?? "") + reason }
}
