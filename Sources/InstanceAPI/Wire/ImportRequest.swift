/// Body of `POST /iid/v1:batchImport` (§2.4).
package struct ImportRequest: Codable, Sendable, Hashable {
    /// The iOS bundle id.
    public var application: String
    /// The APNs sandbox (true) or production (false) environment.
    public var sandbox: Bool
    /// At most 100 APNs tokens (hex).
    public var apnsTokens: [String]

    /// A request.
    public init(application: String, sandbox: Bool, apnsTokens: [String]) {
        self.application = application
        self.sandbox = sandbox
        self.apnsTokens = apnsTokens
    }

    /// The wire names, every one written by `jsonBytes()` too (a test holds the two together).
    enum CodingKeys: String, CodingKey, CaseIterable {
        case application, sandbox
        case apnsTokens = "apns_tokens"
    }
}
