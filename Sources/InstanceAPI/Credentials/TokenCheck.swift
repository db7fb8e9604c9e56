/// What a first token request says of the credentials (`AccessTokenProvider.check()`).
public enum TokenCheck: Sendable, Equatable {
    /// A token was had.
    case ok
    /// The token endpoint will not give one: the credentials are wrong (the message says how).
    case refused(String)
    /// No token for now: the endpoint did not answer, or failed in a way that may pass.
    case unavailable(String)
}
