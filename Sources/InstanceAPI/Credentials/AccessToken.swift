import Foundation

/// An OAuth2 access token and its expiry. Its description never shows the token.
public struct AccessToken: Sendable, Hashable, CustomStringConvertible {
    /// The bearer value. Put it in an `Authorization` header; never log it.
    public let value: String
    /// When the token endpoint said it stops working.
    public let expiresAt: Date

    /// A token.
    public init(value: String, expiresAt: Date) {
        self.value = value
        self.expiresAt = expiresAt
    }

    public var description: String { "AccessToken(redacted, expires \(expiresAt))" }
}
