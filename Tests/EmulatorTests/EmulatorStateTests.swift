import Testing

@testable import Emulator

@Suite("Emulator state: APNs imports")
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
}
