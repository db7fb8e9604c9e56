import Foundation
import InstanceAPI

/// An HTTP request as the emulator's handlers see it, independent of the server library.
public struct EmulatorRequest: Sendable {
    /// `GET`, `POST`, `DELETE`, …
    public var method: String
    /// Percent-decoded path segments.
    public var path: [String]
    /// Query parameters (percent-decoded; the last value wins).
    public var query: [String: String]
    /// Headers by lowercased name.
    public var headers: [String: String]
    /// The body.
    public var body: Data

    /// A request.
    public init(method: String, path: [String], query: [String: String] = [:], headers: [String: String] = [:], body: Data = Data()) {
        self.method = method.uppercased()
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// Splits a raw `/a/b%3Ac?x=1` target into path segments and query parameters. Split on the
    /// UTF-8 bytes (the separators are ASCII), not on characters: every call's target is parsed.
    public static func parse(method: String, target: String, headers: [String: String], body: Data) -> EmulatorRequest {
        let pieces = target.utf8.split(separator: UInt8(ascii: "?"), maxSplits: 1, omittingEmptySubsequences: false)
        let path = pieces[0].split(separator: UInt8(ascii: "/")).map { Substring($0).percentDecoded ?? String(Substring($0)) }
        var query: [String: String] = [:]
        if pieces.count > 1 {
            for pair in pieces[1].split(separator: UInt8(ascii: "&")) {
                let kv = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false).map { Substring($0) }
                let name = kv[0].percentDecoded ?? String(kv[0])
                let value = kv.count > 1 ? (Substring(kv[1].replacing("+", with: " ")).percentDecoded ?? String(kv[1])) : ""
                query[name] = value
            }
        }
        return EmulatorRequest(method: method, path: path, query: query, headers: headers, body: body)
    }
}
