import Foundation
import Testing

@testable import InstanceAPI

/// What an answer may carry back as a token (a device group's `notification_key`, its members):
/// a value no Google API gives (megabytes of text, quotes, control characters) is not the API's
/// answer. Taken as a key, it made every outcome of the request too large to publish, and the
/// worker stopped on it again after every restart.
@Suite("Tokens an answer carries back")
struct AnsweredTokenTests {
    private static let realKey = "APA91bGHXQBB" + String(repeating: "x9_-", count: 30)

    @Test("a device group's key of more bytes than any token, or with a quote or a control character, is a malformed answer")
    func groupKeys() throws {
        #expect(try Self.groupKey(Self.realKey) == .success(Self.realKey))
        for bad in [String(repeating: "A", count: APILimits.answeredTokenBytes + 1), "APA91b\"x", "APA91b\u{01}x", "", "APA91b x", "APA91b\\x"] {
            let error = #expect(throws: InstanceAPIError.self) { try Self.groupKey(bad) }
            guard case .malformedResponse(let api, let status, let message) = error else {
                Issue.record("\(bad.debugDescription): \(String(describing: error))")
                continue
            }
            #expect(api == .deviceGroup && status == 200)
            #expect(message.contains("notification_key"), "\(message)")
        }
    }

    @Test("a group export of more members than a group holds, or with a member no token can be, is a malformed answer")
    func groupMembers() throws {
        let members = (0..<APILimits.groupMembers).map { "token-\($0)" }
        #expect(try Self.members(members) == .success(members))
        for bad in [members + ["one-more"], ["ok", String(repeating: "t", count: APILimits.answeredTokenBytes + 1)], ["ok", "a\"b"]] {
            let error = #expect(throws: InstanceAPIError.self) { try Self.members(bad) }
            guard case .malformedResponse(.groupExport, 200, _) = error else {
                Issue.record("\(bad.count) members: \(String(describing: error))")
                continue
            }
        }
    }

    private static func groupKey(_ key: String) throws(InstanceAPIError) -> ItemOutcome<String> {
        let body = try! JSONEncoder().encode(DeviceGroupResponse(notificationKey: key))
        return try InstanceAPIClient.groupAnswer(InstanceAPIClient.Answer(status: 200, body: body, retryAfter: nil))
    }

    private static func members(_ members: [String]) throws(InstanceAPIError) -> ItemOutcome<[String]> {
        let body = try! JSONEncoder().encode(DeviceGroupExport(notificationKey: "k", registrationIDs: members))
        return try InstanceAPIClient.exportAnswer(InstanceAPIClient.Answer(status: 200, body: body, retryAfter: nil))
    }
}
