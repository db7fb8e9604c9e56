import Foundation
import InstanceAPI
import Testing

@Suite("Limits, Retry-After and credentials")
struct LimitsAndHeadersTests {
    @Test("topic names: the /topics/ prefix is removed, the pattern enforced, the bad name named")
    func topicNames() throws {
        #expect(try APILimits.topicName("/topics/movies") == "movies")
        #expect(try APILimits.topicName("a-b_c.d~e%20") == "a-b_c.d~e%20")
        for bad in ["", "/topics/", "has space", "slash/inside", "ünïcode"] {
            let error = #expect(throws: InstanceAPIError.self) { try APILimits.topicName(bad) }
            #expect(error?.description.contains("'\(bad)'") == true)
        }
    }

    @Test(
        "identifiers: empty, any Unicode whitespace, control or format character (zero-width, bidirectional) and '/' are refused, as a scalar scan finds them, with the field named"
    )
    func identifiers() {
        let pieces = [
            "a", "Z", "9", ":", "-", "_", "é", "😀", " ", "\t", "\n", "\r\n", "\u{0B}", "\u{0C}", "\u{85}", "\u{A0}", "\u{2003}", "\u{3000}", "/", "\u{1F}",
            "\u{1}", "\u{7F}", "\u{9B}", "\u{200B}", "\u{202E}", "\u{FEFF}", "\u{301}",
        ]
        var random = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let value = (0..<Int.random(in: 0...8, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            let refused =
                value.isEmpty
                || value.unicodeScalars.contains {
                    $0.properties.isWhitespace || $0 == "/" || [.control, .format].contains($0.properties.generalCategory)
                }
            do throws(InstanceAPIError) {
                try APILimits.identifier(value, field: "id")
                #expect(!refused, "\(value.debugDescription) was accepted")
            } catch {
                #expect(refused, "\(value.debugDescription) was refused: \(error)")
                #expect(error.description.contains("id"))
            }
        }
        #expect(throws: Never.self) { try APILimits.identifier("bk3RNwTe3H0:CI2k_HHwgIpoDKCIZvvDMExUdFQ3P1", field: "token") }
        // Past the stream-safe limit (UAX #15): 31 combining marks in a row.
        #expect(APILimits.identifierProblem("a" + String(repeating: "\u{301}", count: 31))?.contains("stream-safe") == true)
        #expect(APILimits.identifierProblem("a" + String(repeating: "\u{301}", count: 30)) == nil)
        // A device group's name may hold format characters (a ZWNJ in Persian, a ZWJ in an
        // emoji), never a control character, whitespace or '/'.
        for name in ["\u{645}\u{6CC}\u{200C}\u{62E}\u{648}\u{627}\u{647}\u{645}", "\u{1F469}\u{200D}\u{1F4BB}"] {
            #expect(APILimits.identifierProblem(name, isName: true) == nil && APILimits.identifierProblem(name) != nil)
        }
        for name in ["a\u{9B}", "a b", "a/b", "a\u{1}", "fam\u{202E}ily", "family\u{200B}", "a\u{FEFF}"] {
            #expect(APILimits.identifierProblem(name, isName: true) != nil, "\(name.debugDescription)")
        }
    }

    @Test("item lists: empty, over the limit and empty strings are refused with the field named")
    func itemLists() throws {
        try APILimits.items(Array(repeating: "t", count: 1_000), field: "registration_tokens", limit: 1_000)
        #expect(throws: InstanceAPIError.invalidArgument(field: "registration_tokens", value: "1001 items", reason: "at most 1000 per call")) {
            try APILimits.items(Array(repeating: "t", count: 1_001), field: "registration_tokens", limit: 1_000)
        }
        #expect(throws: InstanceAPIError.invalidArgument(field: "apns_tokens", value: "[]", reason: "must not be empty")) {
            try APILimits.items([], field: "apns_tokens", limit: 100)
        }
        #expect(throws: InstanceAPIError.invalidArgument(field: "registration_ids[1]", value: "", reason: "must be a non-empty string")) {
            try APILimits.items(["a", ""], field: "registration_ids", limit: 20)
        }
    }

    @Test("Retry-After: seconds and HTTP dates; garbage is nil; the past is zero")
    func retryAfter() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(RetryAfter.parse("120", now: now) == .seconds(120))
        #expect(RetryAfter.parse(" 0 ", now: now) == .seconds(0))
        #expect(RetryAfter.parse(RetryAfter.httpDate(now.addingTimeInterval(90)), now: now) == .seconds(90))
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", now: now) == .zero)
        #expect(RetryAfter.parse("soon", now: now) == nil)
        #expect(RetryAfter.parse("-5", now: now) == nil)
    }

    @Test("Retry-After: a day, Int.max seconds or a date in the year 9999 is held to RetryAfter.longest, never a trap")
    func retryAfterIsBounded() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(RetryAfter.parse("86400", now: now) == .seconds(86_400))
        #expect(RetryAfter.parse("9223372036854775807", now: now) == RetryAfter.longest)
        #expect(RetryAfter.parse("Fri, 31 Dec 9999 23:59:59 GMT", now: now) == RetryAfter.longest)
        #expect(RetryAfter.parse("99999999999999999999", now: now) == nil, "past Int: not a number of seconds")
    }

    static let secret = "PLANTED-SECRET-7f3a9c"

    static func keyFile(replacing field: String? = nil, with value: Any? = nil) throws -> Data {
        var object: [String: Any] = [
            "type": "service_account", "project_id": "p", "private_key_id": "kid", "client_email": "a@p.iam.gserviceaccount.com",
            "token_uri": "https://oauth2.googleapis.com/token",
            "private_key": "-----BEGIN PRIVATE KEY-----\n\(secret)\n-----END PRIVATE KEY-----\n",
        ]
        if let field { object[field] = value }
        return try JSONSerialization.data(withJSONObject: object)
    }

    @Test("key files: a missing file, bad JSON, each missing field and a non-RSA key are named; the key never shows")
    func credentialsErrors() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("iidbatch-cred-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let missing = dir.appendingPathComponent("none.json").path
        #expect(throws: CredentialsError.fileNotFound(path: missing)) { try ServiceAccountCredentials.load(from: missing) }
        let bad = dir.appendingPathComponent("bad.json")
        try Data("not json \(Self.secret)".utf8).write(to: bad)
        #expect(throws: CredentialsError.invalidJSON(path: bad.path)) { try ServiceAccountCredentials.load(from: bad.path) }
        for field in ["client_email", "private_key_id", "project_id", "token_uri", "private_key"] {
            #expect(throws: CredentialsError.missingField(path: "k", field: field)) {
                try ServiceAccountCredentials(json: try Self.keyFile(replacing: field, with: nil), source: "k")
            }
            #expect(throws: CredentialsError.missingField(path: "k", field: field)) {
                try ServiceAccountCredentials(json: try Self.keyFile(replacing: field, with: 42), source: "k")
            }
        }
        let error = #expect(throws: CredentialsError.self) { try ServiceAccountCredentials(json: try Self.keyFile(), source: "k") }
        #expect(error == .notRSAKey(path: "k"))
        #expect(error?.description.contains(Self.secret) == false)
        #expect(String(describing: error).contains(Self.secret) == false)
    }

    @Test("a generated key signs RS256 assertions with the right claims, and describes itself without the key")
    func assertions() throws {
        let (json, publicKeyPEM, keyID) = try ServiceAccountCredentials.generateKeyFile(
            projectID: "p", clientEmail: "a@p", tokenURI: "http://127.0.0.1:1/token")
        let credentials = try ServiceAccountCredentials(json: json)
        #expect(credentials.privateKeyID == keyID)
        let text = String(decoding: json, as: UTF8.self)
        #expect(text.contains("BEGIN PRIVATE KEY"))
        #expect(!credentials.description.contains("PRIVATE"))
        #expect(!"\(credentials)".contains(publicKeyPEM.dropFirst(30).prefix(40)))
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let jwt = try credentials.assertion(scopes: AccessTokenProvider.defaultScopes, now: now)
        let parts = jwt.split(separator: ".")
        #expect(parts.count == 3)
        let header = try JSONDecoder().decode(JWTHeader.self, from: Base64URL.decode(parts[0])!)
        let claims = try JSONDecoder().decode(JWTClaims.self, from: Base64URL.decode(parts[1])!)
        #expect(header.alg == "RS256" && header.kid == keyID)
        #expect(claims.iss == "a@p" && claims.sub == "a@p" && claims.aud == "http://127.0.0.1:1/token")
        #expect(claims.scope == "https://www.googleapis.com/auth/firebase.messaging https://www.googleapis.com/auth/cloud-platform")
        #expect(claims.iat == 1_800_000_000 && claims.exp == 1_800_003_600)
    }
}
