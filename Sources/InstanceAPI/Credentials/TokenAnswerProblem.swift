/// Why a token endpoint's answer cannot be used (`TokenResponse.read(_:)`): the field it names
/// and what is wrong with it, never the token's value.
public struct TokenAnswerProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// What the endpoint answered, as it follows "answered": `without an access_token`.
    public var description: String

    /// A problem, said as it follows "answered".
    public init(_ description: String) {
        self.description = description
    }
}
