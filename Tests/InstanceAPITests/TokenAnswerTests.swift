import Foundation
import Testing

@testable import InstanceAPI

/// The token endpoint's answer, as an adversary (a broken metadata server, a proxy) may write it:
/// what cannot be sent as a bearer token, or has already expired, is refused with the field named
/// (never the token's value), rather than failing every call with an unclear header error, or
/// buying a token before every call.
@Suite("Token endpoint answers iidbatch cannot use are refused, naming the field")
struct TokenAnswerTests {
    private func read(_ body: String) -> Result<TokenResponse, TokenAnswerProblem> {
        TokenResponse.read(Data(body.utf8))
    }

    @Test("Google's answer, and a metadata server's, are read")
    func googles() throws {
        let token = try read(#"{"access_token": "ya29.a0AfB_byC-x~y+z/w==", "expires_in": 3599, "token_type": "Bearer"}"#).get()
        #expect(token.accessToken == "ya29.a0AfB_byC-x~y+z/w==" && token.expiresIn == 3599)
        #expect((try? read(#"{"access_token": "t", "expires_in": 10, "token_type": "bearer"}"#).get())?.expiresIn == 10, "the type's case is free")
    }

    @Test(
        "an access_token that is missing, empty or holds bytes a bearer token cannot; a token_type other than Bearer; an expiry not a positive whole number",
        arguments: [
            (#"{"expires_in": 3599, "token_type": "Bearer"}"#, "access_token"),
            (#"{"access_token": "", "expires_in": 3599, "token_type": "Bearer"}"#, "access_token"),
            (#"{"access_token": "ya29.x\r\nX-Evil: 1", "expires_in": 3599, "token_type": "Bearer"}"#, "access_token"),
            (#"{"access_token": "ya29 x", "expires_in": 3599, "token_type": "Bearer"}"#, "access_token"),
            (#"{"access_token": "a=b", "expires_in": 3599, "token_type": "Bearer"}"#, "access_token"),
            (#"{"access_token": 12, "expires_in": 3599, "token_type": "Bearer"}"#, "access_token"),
            (#"{"access_token": "t", "expires_in": 3599, "token_type": "mac"}"#, "token_type"),
            (#"{"access_token": "t", "expires_in": 3599}"#, "token_type"),
            (#"{"access_token": "t", "expires_in": 0, "token_type": "Bearer"}"#, "expires_in"),
            (#"{"access_token": "t", "expires_in": -5, "token_type": "Bearer"}"#, "expires_in"),
            (#"{"access_token": "t", "expires_in": "3599", "token_type": "Bearer"}"#, "expires_in"),
            (#"{"access_token": "t", "expires_in": 1e300, "token_type": "Bearer"}"#, "expires_in"),
            (#"{"access_token": "t", "token_type": "Bearer"}"#, "expires_in"),
            ("<html>sign in</html>", "JSON"),
        ])
    func refused(body: String, field: String) {
        guard case .failure(let problem) = read(body) else {
            Issue.record("\(body) was read as a token")
            return
        }
        #expect(problem.description.contains(field), "\(problem)")
        #expect(!problem.description.contains("ya29") && !problem.description.contains("X-Evil"), "the token's value is never told: \(problem)")
    }

    @Test("a lifetime past a day is held to a day: a token is bought again at least daily (else only a 401 would replace it)")
    func longLife() throws {
        #expect(try read(#"{"access_token": "t", "expires_in": 1000000000000, "token_type": "Bearer"}"#).get().expiresIn == TokenResponse.longestLifetime)
        #expect(try read(#"{"access_token": "t", "expires_in": 3599.0, "token_type": "Bearer"}"#).get().expiresIn == 3599)
    }
}
