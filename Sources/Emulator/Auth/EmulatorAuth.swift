import Foundation
import InstanceAPI
import Synchronization
import _CryptoExtras

/// The emulator's OAuth2: service-account keys it trusts, and the access tokens it issued.
final class EmulatorAuth: Sendable {
    struct Key: Sendable {
        var publicKey: _RSA.Signing.PublicKey
        var clientEmail: String
        var project: String
    }

    private struct State {
        var keys: [String: Key] = [:]
        var tokens: [String: (project: String, expires: Date)] = [:]
        var metadataScopes: [String]?
    }

    private let state = Mutex(State())
    let tokenLifetime: Int

    init(tokenLifetime: Int) { self.tokenLifetime = tokenLifetime }

    /// The scopes the last token request to the metadata server's path asked for (`scopes`,
    /// comma-separated); nil before one, or when it named none.
    var lastMetadataScopes: [String]? { state.withLock { $0.metadataScopes } }

    /// Makes and trusts a new key for `project`; returns the key file's JSON.
    func makeKey(project: String, clientEmail: String, tokenURI: String) throws -> Data {
        let (json, publicKeyPEM, keyID) = try ServiceAccountCredentials.generateKeyFile(projectID: project, clientEmail: clientEmail, tokenURI: tokenURI)
        let publicKey = try _RSA.Signing.PublicKey(pemRepresentation: publicKeyPEM)
        state.withLock { $0.keys[keyID] = Key(publicKey: publicKey, clientEmail: clientEmail, project: project) }
        return json
    }

    /// Trusts an existing key file (for example one written by an earlier run).
    func trust(keyFile: Data) throws {
        let credentials = try ServiceAccountCredentials(json: keyFile)
        let publicKey = try credentials.publicKey()
        state.withLock { $0.keys[credentials.privateKeyID] = Key(publicKey: publicKey, clientEmail: credentials.clientEmail, project: credentials.projectID) }
    }

    /// `POST /token`: exchanges a signed JWT-bearer assertion for an access token.
    func tokenEndpoint(_ request: EmulatorRequest) -> EmulatorResponse {
        let form = EmulatorRequest.parse(method: "POST", target: "/?" + String(decoding: request.body, as: UTF8.self), headers: [:], body: Data()).query
        guard form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer" else {
            return .json(
                ["error": "unsupported_grant_type", "error_description": "grant_type must be urn:ietf:params:oauth:grant-type:jwt-bearer"], status: 400)
        }
        guard let assertion = form["assertion"] else {
            return .json(["error": "invalid_request", "error_description": "missing assertion"], status: 400)
        }
        switch verify(assertion) {
        case .failure(let reason):
            return .json(["error": "invalid_grant", "error_description": reason], status: 400)
        case .success(let project):
            return .json(issueToken(project: project))
        }
    }

    /// A new access token for `project`, valid for the token lifetime.
    func issueToken(project: String) -> TokenResponse {
        let token = "ya29.emu-" + (0..<24).map { _ in NumberText.digits(UInt8.random(in: 0...255), radix: 16, width: 2) }.joined()
        state.withLock { $0.tokens[token] = (project, Date().addingTimeInterval(TimeInterval(tokenLifetime))) }
        return TokenResponse(accessToken: token, expiresIn: tokenLifetime)
    }

    /// The GCE metadata server's answers (§1, workload identity): the default service account's
    /// token, and the project id as text. Without `Metadata-Flavor: Google` it refuses with 403,
    /// as Google's does.
    func metadata(_ request: EmulatorRequest, project: String) -> EmulatorResponse {
        guard request.headers["metadata-flavor"] == "Google" else {
            return EmulatorResponse(status: 403, body: Data("Missing required header: Metadata-Flavor".utf8))
        }
        switch request.path.joined(separator: "/") {
        case "computeMetadata/v1/instance/service-accounts/default/token":
            let scopes = request.query["scopes"].map { $0.split(separator: ",").map(String.init) }
            state.withLock { $0.metadataScopes = scopes }
            return .json(issueToken(project: project))
        case "computeMetadata/v1/project/project-id": return EmulatorResponse(status: 200, body: Data(project.utf8))
        default: return EmulatorResponse(status: 404, body: Data("not found".utf8))
        }
    }

    private enum Verdict {
        case success(String)
        case failure(String)
    }

    private func verify(_ assertion: String) -> Verdict {
        let parts = assertion.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Base64URL.decode(parts[0]), let claimsData = Base64URL.decode(parts[1]),
            let signatureData = Base64URL.decode(parts[2]),
            let header = try? JSONDecoder().decode(JWTHeader.self, from: headerData),
            let claims = try? JSONDecoder().decode(JWTClaims.self, from: claimsData)
        else { return .failure("malformed JWT") }
        guard header.alg == "RS256" else { return .failure("alg must be RS256") }
        guard let kid = header.kid, let key = state.withLock({ $0.keys[kid] }) else { return .failure("Invalid JWT Signature.") }
        let signed = Data((parts[0] + "." + parts[1]).utf8)
        guard key.publicKey.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signatureData), for: signed, padding: .insecurePKCS1v1_5) else {
            return .failure("Invalid JWT Signature.")
        }
        let now = Int(Date().timeIntervalSince1970)
        guard claims.iss == key.clientEmail else { return .failure("iss does not match the key's client_email") }
        guard claims.exp > now, claims.iat <= now + 300 else {
            return .failure("Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.")
        }
        guard claims.aud.hasSuffix("/token") else { return .failure("Invalid JWT audience") }
        return .success(key.project)
    }

    /// The project of a bearer token, or nil when the token is unknown, expired or refused.
    func project(ofBearer header: String?, rejectAll: Bool) -> String? {
        guard !rejectAll, let header, header.lowercased().hasPrefix("bearer ") else { return nil }
        let token = String(header.dropFirst("bearer ".count))
        guard let entry = state.withLock({ $0.tokens[token] }), entry.expires > Date() else { return nil }
        return entry.project
    }

    /// Forgets every issued access token: the next call with one gets 401.
    func revokeAllTokens() {
        state.withLock { $0.tokens = [:] }
    }
}
