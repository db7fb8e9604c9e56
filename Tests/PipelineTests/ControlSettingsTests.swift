import Foundation
import Pipeline
import Testing

@Suite("Live control: control documents and the precedence of settings")
struct ControlSettingsTests {
    static let file = try! PipelineFile.parse(
        "request-topic: t\nconcurrency: 16\nrate-limit: 100\nretry: { max-attempts: 6 }\n", file: "topics.yaml", name: "topics")

    static func document(_ version: Int, by: String = "alice", _ overrides: String) -> [UInt8] {
        Array(#"{"version": \#(version), "updatedAt": "2026-11-23T10:00:00Z", "updatedBy": "\#(by)", "reason": "incident", "overrides": \#(overrides)}"#.utf8)
    }

    @Test("precedence: the pipeline's override, then *, then the file, then the built-in default; each value says where it comes from")
    func precedence() throws {
        let all = try ControlDocument.parse(Self.document(2, by: "bob", #"{"rate-limit": 50, "concurrency": 4, "retry.max-elapsed": "1m"}"#))
        let own = try ControlDocument.parse(Self.document(7, #"{"rate-limit": 5, "paused": true}"#))
        let settings = ControlledSettings(file: Self.file, all: all, own: own)
        #expect(settings.settings[.rateLimit] == .init(value: .number(5), source: .override(scope: "topics", version: 7, updatedBy: "alice")))
        #expect(settings.settings[.concurrency] == .init(value: .count(4), source: .override(scope: "*", version: 2, updatedBy: "bob")))
        #expect(settings.settings[.retryMaxAttempts] == .init(value: .count(6), source: .file))
        #expect(settings.settings[.maxInFlightItems] == .init(value: .count(50_000), source: .builtIn))
        #expect(settings.settings[.retryMaxElapsed]?.value == .duration(.seconds(60)))
        #expect(settings.paused)
        let applied = settings.applied(to: Self.file)
        #expect(applied.callsPerSecond == 5 && applied.concurrency == 4 && applied.retry.maxElapsed == .seconds(60) && applied.retry.maxAttempts == 6)

        let untouched = ControlledSettings(file: Self.file, all: nil, own: nil)
        #expect(!untouched.paused && untouched.applied(to: Self.file) == Self.file)
        #expect(untouched.settings[.rateLimit]?.source == .file && untouched.settings[.paused]?.source == .builtIn)
        let noCeiling = try PipelineFile.parse("request-topic: t\n", file: "a.yaml", name: "a")
        #expect(ControlledSettings(file: noCeiling, all: nil, own: nil).settings[.rateLimit] == nil, "no rate-limit anywhere: no ceiling")
    }

    @Test(
        "a bad override is refused naming the key and the value",
        arguments: [
            (#"{"pause": true}"#, "unknown setting 'pause'"),
            (#"{"paused": "yes"}"#, #"paused: "yes" is not true or false"#),
            (#"{"rate-limit": 0}"#, "rate-limit: 0 is not a number of calls per second"),
            (#"{"concurrency": 2.5}"#, "concurrency: 2.5 is not an integer in 1...1024"),
            (#"{"concurrency": 5000}"#, "concurrency: 5000 is not an integer in 1...1024"),
            (#"{"max-in-flight-items": "many"}"#, "max-in-flight-items: \"many\" is not an integer"),
            (#"{"retry.max-attempts": 0}"#, "retry.max-attempts: 0 is not an integer in 1...100"),
            (#"{"retry.max-elapsed": "soon"}"#, "retry.max-elapsed: \"soon\" is not a duration"),
            (#"[]"#, "overrides must be an object"),
        ])
    func refused(overrides: String, reason: String) {
        #expect(throws: ControlError.self) { try ControlDocument.parse(Self.document(1, overrides)) }
        do {
            _ = try ControlDocument.parse(Self.document(1, overrides))
        } catch {
            #expect(error.description.contains(reason), "\(error)")
        }
    }

    @Test("a document round-trips through its wire form; a record that is no document is refused")
    func roundTrip() throws {
        let document = ControlDocument(
            version: 3, updatedAt: Date(timeIntervalSince1970: 1_795_000_000.25), updatedBy: "alice", reason: "quota needed elsewhere",
            overrides: [.paused: .flag(false), .rateLimit: .number(2.5), .concurrency: .count(8), .retryMaxElapsed: .duration(.milliseconds(1_500))])
        #expect(try ControlDocument.parse(document.jsonBytes()) == document)
        for bad in ["not json", #"{"version": 0}"#, #"{"version": 1, "updatedAt": "yesterday"}"#] {
            #expect(throws: ControlError.self) { try ControlDocument.parse(Array(bad.utf8)) }
        }
    }

    @Test("a control value set on the command line reads like one from a document")
    func commandLineValues() throws {
        #expect(try ControlKey.rateLimit.value(from: .text("5")) == .number(5))
        #expect(try ControlKey.paused.value(from: .text("true")) == .flag(true))
        #expect(try ControlKey.retryMaxElapsed.value(from: .text("90s")) == .duration(.seconds(90)))
        #expect(throws: ControlError.self) { try ControlKey.concurrency.value(from: .text("lots")) }
        for duration in [Duration.milliseconds(250), .seconds(90), .seconds(300), .seconds(7_200), .seconds(86_400)] {
            #expect(DurationText.parse(DurationText.format(duration)) == duration)
        }
    }
}
