import Foundation
import WireJSON

extension TokenResponse {
    /// The longest a token is used for, in seconds: a day. An answer saying longer is held to it,
    /// so a token is bought again at least daily (else only a 401 would replace it).
    public static let longestLifetime = 86_400

    /// The answer `body` of the token endpoint (§1), when iidbatch can use it: a JSON object with
    /// an `access_token` a bearer token can be (RFC 6750's `b64token`: one or more letters,
    /// digits, `-._~+/`, then any `=`), a `token_type` of `Bearer` (any case) and an `expires_in`
    /// that is a whole number of seconds above 0 (held to `longestLifetime`). Anything else is a
    /// problem naming the field: a token that cannot go in a header would fail every call with a
    /// header error, and one already expired would be bought again before every call.
    public static func read(_ body: Data) -> Result<TokenResponse, TokenAnswerProblem> {
        guard let answer = try? JSONValue.parse(bytes: [UInt8](body)), case .object = answer else {
            return .failure(TokenAnswerProblem("no JSON object"))
        }
        guard let token = answer[CodingKeys.accessToken]?.stringValue else {
            return .failure(TokenAnswerProblem("without an \(CodingKeys.accessToken.rawValue) (a string)"))
        }
        guard isBearerToken(token) else {
            return .failure(
                TokenAnswerProblem(
                    "an \(CodingKeys.accessToken.rawValue) no bearer token can be (\(token.isEmpty ? "empty" : "a byte outside RFC 6750's letters, digits, -._~+/ and closing =")); not sent"
                ))
        }
        guard let type = answer[CodingKeys.tokenType]?.stringValue else {
            return .failure(TokenAnswerProblem("without a \(CodingKeys.tokenType.rawValue)"))
        }
        guard type.lowercased() == "bearer" else {
            return .failure(TokenAnswerProblem("\(CodingKeys.tokenType.rawValue) '\(type.utf8Prefix(maxBytes: 32))', not Bearer"))
        }
        guard case .number(let seconds)? = answer[CodingKeys.expiresIn], let whole = Int(exactly: seconds), whole > 0 else {
            return .failure(TokenAnswerProblem("an \(CodingKeys.expiresIn.rawValue) that is not a whole number of seconds above 0"))
        }
        return .success(TokenResponse(accessToken: token, expiresIn: min(whole, longestLifetime), tokenType: type))
    }

    /// True for RFC 6750's `b64token`: one or more of A-Z a-z 0-9 `-._~+/`, then any number of `=`.
    private static func isBearerToken(_ token: String) -> Bool {
        let bytes = Array(token.utf8)
        let end = bytes.lastIndex { $0 != UInt8(ascii: "=") }.map { $0 + 1 } ?? 0
        guard end > 0 else { return false }
        return bytes[..<end].allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || "-._~+/".utf8.contains(byte)
        }
    }
}
