/// A token endpoint's answer that it will not give a token (a 4xx other than 408 and 429), as
/// `AccessTokenProvider` tells it from a failure that may pass (`TokenCheck`).
struct TokenRefusal: Error, CustomStringConvertible {
    /// What the endpoint answered.
    let description: String
}
