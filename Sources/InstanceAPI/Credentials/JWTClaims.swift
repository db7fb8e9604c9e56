/// The claims of a JWT-bearer assertion (§1).
package struct JWTClaims: Codable, Sendable, Hashable {
    /// Issuer: the client email.
    public var iss: String
    /// Subject: the client email.
    public var sub: String?
    /// Audience: the token URI.
    public var aud: String
    /// Space-separated OAuth2 scopes.
    public var scope: String?
    /// Issued at, seconds since 1970.
    public var iat: Int
    /// Expires at, seconds since 1970.
    public var exp: Int
}
