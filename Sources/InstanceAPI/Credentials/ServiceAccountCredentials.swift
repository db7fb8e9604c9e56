import Foundation
import _CryptoExtras

/// A Google service-account key (the JSON file the console hands out), able to sign the JWT
/// assertions that buy access tokens (§1).
///
/// Its description names the account, project and key id only; the private key never appears in
/// a description, log line or error.
public struct ServiceAccountCredentials: Sendable, CustomStringConvertible {
    /// `client_email`: the JWT's issuer and subject.
    public let clientEmail: String
    /// `private_key_id`: the JWT header's `kid`.
    public let privateKeyID: String
    /// `project_id`.
    public let projectID: String
    /// `token_uri`: where assertions are exchanged for access tokens, and the JWT's audience.
    public let tokenURI: String
    let privateKey: _RSA.Signing.PrivateKey

    /// Reads a key file.
    ///
    /// - Throws: `CredentialsError` naming the file and the missing or bad field.
    public static func load(from path: String) throws(CredentialsError) -> ServiceAccountCredentials {
        guard FileManager.default.fileExists(atPath: path) else { throw .fileNotFound(path: path) }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw .unreadable(path: path, reason: (error as NSError).localizedDescription)
        }
        return try ServiceAccountCredentials(json: data, source: path)
    }

    /// Parses a key file's contents; `source` names it in errors.
    public init(json: Data, source: String = "(inline key)") throws(CredentialsError) {
        guard let object = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any] else {
            throw .invalidJSON(path: source)
        }
        func field(_ name: String) throws(CredentialsError) -> String {
            guard let value = object[name] as? String, !value.isEmpty else { throw .missingField(path: source, field: name) }
            return value
        }
        clientEmail = try field("client_email")
        privateKeyID = try field("private_key_id")
        projectID = try field("project_id")
        tokenURI = try field("token_uri")
        let pem = try field("private_key")
        do { privateKey = try _RSA.Signing.PrivateKey(unsafePEMRepresentation: pem) } catch {
            throw .notRSAKey(path: source)
        }
    }

    /// The public half of the key, which verifies this account's assertions.
    public func publicKey() throws -> _RSA.Signing.PublicKey { privateKey.publicKey }

    public var description: String {
        "service account \(clientEmail) (project \(projectID), key \(privateKeyID))"
    }

    /// A signed RS256 JWT-bearer assertion for `scopes`, valid for an hour from `now`.
    public func assertion(scopes: [String], now: Date = Date(), audience: String? = nil) throws -> String {
        let issued = Int(now.timeIntervalSince1970)
        let header = JWTHeader(alg: "RS256", typ: "JWT", kid: privateKeyID)
        let claims = JWTClaims(
            iss: clientEmail, sub: clientEmail, aud: audience ?? tokenURI, scope: scopes.joined(separator: " "),
            iat: issued, exp: issued + 3600)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let signingInput = Base64URL.encode(try encoder.encode(header)) + "." + Base64URL.encode(try encoder.encode(claims))
        let signature = try privateKey.signature(for: Data(signingInput.utf8), padding: .insecurePKCS1v1_5)
        return signingInput + "." + Base64URL.encode(signature.rawRepresentation)
    }

    /// Makes a new service-account key file: a fresh 2048-bit RSA key and the given identity.
    ///
    /// Returns the key file's JSON and the public key (PEM) that verifies its assertions.
    public static func generateKeyFile(
        projectID: String, clientEmail: String, tokenURI: String
    ) throws -> (json: Data, publicKeyPEM: String, keyID: String) {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let keyID = (0..<20).map { _ in NumberText.digits(UInt8.random(in: 0...255), radix: 16, width: 2) }.joined()
        let file: [String: String] = [
            "type": "service_account", "project_id": projectID, "private_key_id": keyID,
            "private_key": key.pkcs8PEMRepresentation, "client_email": clientEmail,
            "client_id": String(UInt64.random(in: 100_000_000_000...999_999_999_999)),
            "auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": tokenURI,
        ]
        let json = try JSONSerialization.data(withJSONObject: file, options: [.prettyPrinted, .sortedKeys])
        return (json, key.publicKey.pemRepresentation, keyID)
    }
}
