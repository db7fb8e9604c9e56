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
        var state = EmulatorState()
        var token = EmulatorState.Token(project: "p", application: "app", platform: "ANDROID")
        func subscribe(_ topic: String, _ today: String, project: String = "p") -> String? {
            token.subscribe(state.subscription(to: topic, today: today), project: project)
        }
        func date(_ topic: String) -> String? {
            state.topicNames.existingID(topic).flatMap { token.subscriptions.date(of: $0) }.map { state.dates.name($0) }
        }
        var answers = [subscribe("first", "2026-01-01"), subscribe("first", "2026-02-02")]
        #expect(answers == [nil, nil] && date("first") == "2026-01-01")
        answers = (1..<APILimits.topicsPerInstance).map { subscribe("t\($0)", "2026-03-03") }
        #expect(answers.allSatisfy { $0 == nil } && token.subscriptions.count == APILimits.topicsPerInstance)
        answers = [subscribe("one-too-many", "2026-03-03"), subscribe("first", "2026-04-04"), subscribe("first", "2026-04-04", project: "other")]
        #expect(answers == ["TOO_MANY_TOPICS", nil, "INVALID_ARGUMENT"])
        #expect(date("first") == "2026-01-01" && date("one-too-many") == nil && date("t7") == "2026-03-03")
        #expect(state.subscribedTopics(token).count == APILimits.topicsPerInstance && state.subscribedTopics(token).first == "first")
    }

    @Test("subscriptions stay sorted by topic id whatever order they come in, and a removal takes out only its topic")
    func subscriptionsOrder() {
        var subscriptions = Subscriptions()
        var rng = SystemRandomNumberGenerator()
        let ids = (0..<300).map { UInt32($0 * 7 % 300) }.shuffled(using: &rng)
        let added = ids.map { subscriptions.add(.init(topic: $0, date: $0 + 1), limit: 1_000) }
        #expect(added.allSatisfy { $0 })
        #expect(subscriptions.entries.map(\.topic) == (0..<300).map(UInt32.init))
        #expect(subscriptions.entries.allSatisfy { $0.date == $0.topic + 1 })
        for id in ids.prefix(100) { subscriptions.remove(id) }
        subscriptions.remove(5_000)
        #expect(subscriptions.count == 200 && ids.prefix(100).allSatisfy { subscriptions.date(of: $0) == nil })
        #expect(ids.dropFirst(100).allSatisfy { subscriptions.date(of: $0) == $0 + 1 })
    }

    @Test("a registration token is 1 to 4,096 of [A-Za-z0-9_:.-]: every byte decided as the rule says, and non-ASCII, empty and overlong refused")
    func tokenCharacters() {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:.-".utf8)
        for byte in UInt8(1)...UInt8(127) {
            let character = String(decoding: [byte], as: UTF8.self)
            #expect(EmulatorState.isWellFormed("ab" + character + "cd") == allowed.contains(byte), "byte \(byte)")
        }
        #expect(EmulatorState.isWellFormed(String(repeating: "a", count: 4_096)))
        #expect(!EmulatorState.isWellFormed(String(repeating: "a", count: 4_097)))
        #expect(!EmulatorState.isWellFormed(""))
        #expect(!EmulatorState.isWellFormed("tokén"), "a non-ASCII letter")
        #expect(!EmulatorState.isWellFormed("a\u{0}b"))
        // A string made from a slice is checked like any other.
        let slice = "xx-valid.token:1_yy".dropFirst(2).dropLast(2)
        #expect(EmulatorState.isWellFormed(String(slice)))
        #expect(EmulatorState.isWellFormedInstallation("cW0bZ3kYR8eX9nQ1aB2cD3") && !EmulatorState.isWellFormedInstallation("short"))
    }
}
