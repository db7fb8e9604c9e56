import InstanceAPI
import Testing

@testable import Emulator

@Suite("Emulator state: topic subscriptions and APNs imports")
struct EmulatorStateTests {
    @Test("an APNs token is 32 or more hex digits, an even number of them; any other is refused as Google refuses it")
    func apnsTokens() {
        var state = EmulatorState()
        let valid = [String(repeating: "ab", count: 16), String(repeating: "0F", count: 32), "368dde283db539abc4a6419b1795b6131194703b816e4f624ffa12"]
        let invalid = [
            "", String(repeating: "a", count: 30), String(repeating: "a", count: 33), String(repeating: "g", count: 32), String(repeating: "１", count: 32),
            String(repeating: "a", count: 31) + ":",
        ]
        for token in valid {
            let entry = state.importToken(token, application: "app", sandbox: false, project: "p")
            #expect(entry.status == "OK" && entry.registrationToken != nil, "\(token)")
            // A registration token as FCM's look: 11 hex digits, ":APA91b", 32 hex digits; the same again on a re-import.
            let registration = entry.registrationToken ?? ""
            let parts = registration.split(separator: ":", maxSplits: 1).map(String.init)
            #expect(parts.count == 2 && parts[0].count == 11 && parts[1].hasPrefix("APA91b") && parts[1].count == 38, "\(registration)")
            #expect((parts[0] + parts[1].dropFirst(6)).allSatisfy { "0123456789abcdef".contains($0) }, "\(registration)")
            #expect(state.importToken(token, application: "app", sandbox: false, project: "p").registrationToken == registration)
        }
        for token in invalid {
            let entry = state.importToken(token, application: "app", sandbox: false, project: "p")
            #expect(entry.status == "Invalid APNs token" && entry.registrationToken == nil, "\(token)")
        }
    }

    @Test("a token holds at most 2,000 topics; a repeated subscription keeps the date it was first added, at the limit too")
    func topicLimitAndDates() {
        var token = EmulatorState.Token(project: "p", application: "app", platform: "ANDROID")
        #expect(token.subscribe(to: "first", project: "p", today: "2026-01-01") == nil)
        #expect(token.subscribe(to: "first", project: "p", today: "2026-02-02") == nil)
        #expect(token.topics["first"] == "2026-01-01")
        for n in 1..<APILimits.topicsPerInstance { #expect(token.subscribe(to: "t\(n)", project: "p", today: "2026-03-03") == nil) }
        #expect(token.topics.count == APILimits.topicsPerInstance)
        #expect(token.subscribe(to: "one-too-many", project: "p", today: "2026-03-03") == "TOO_MANY_TOPICS")
        #expect(token.subscribe(to: "first", project: "p", today: "2026-04-04") == nil)
        #expect(token.topics["first"] == "2026-01-01" && token.topics["one-too-many"] == nil)
        #expect(token.subscribe(to: "first", project: "other", today: "2026-04-04") == "INVALID_ARGUMENT")
    }
}
