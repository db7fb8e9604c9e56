/// Answer of the OAuth2 token endpoint (§1).
public struct TokenResponse: Codable, Sendable, Hashable {
    /// The bearer token. Never logged.
    public var accessToken: String
    /// Seconds until it expires.
    public var expiresIn: Int
    /// `Bearer`.
    public var tokenType: String

    /// An answer.
    public init(accessToken: String, expiresIn: Int, tokenType: String = "Bearer") {
        self.accessToken = accessToken
        self.expiresIn = expiresIn
        self.tokenType = tokenType
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case expiresIn = "expires_in"
        case tokenType = "token_type"
    }
}
