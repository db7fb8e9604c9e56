/// A pipeline file that cannot be used: names the file, the key (dotted path) and why.
public struct PipelineFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file.
    public var file: String
    /// The offending key, as a dotted path (`retry.max-attempts`), or nil for the file as a whole.
    public var key: String?
    /// What is wrong, with the offending value.
    public var reason: String

    /// An error.
    public init(file: String, key: String?, reason: String) {
        self.file = file
        self.key = key
        self.reason = reason
    }

    public var description: String { "\(file): " + (key.map { "\($0): " } ?? "") + reason }
}
