/// The JWT header of an assertion.
package struct JWTHeader: Codable, Sendable, Hashable {
    /// Always `RS256`.
    public var alg: String
    /// Always `JWT`.
    public var typ: String?
    /// The key id (`private_key_id`).
    public var kid: String?
}
