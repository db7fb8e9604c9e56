import Foundation
import InstanceAPI
import TestSupport
import Testing
import WireJSON

/// `JSONValue`'s parser against Foundation's `JSONSerialization` over random and damaged
/// documents (`JSONFuzzGenerator`). The suite runs seed 31, so a run in CI is the same every time;
/// `IIDBATCH_FUZZ_SEED` sets another (`random` draws a fresh one, printed), `IIDBATCH_FUZZ_CASES`
/// the number of cases (3,000 by default: a second or two in a debug build). A failure prints its
/// case's own seed and the command that replays that case alone (`IIDBATCH_FUZZ_CASE`).
@Suite("Strict JSON, fuzzed against Foundation's JSONSerialization")
struct JSONDifferentialFuzzTests {
    @Test(
        "both parsers read the same value or both refuse; where only ours refuses, a documented difference explains it at the offset it names"
    )
    func differential() async {
        let environment = ProcessInfo.processInfo.environment
        var system = SystemRandomNumberGenerator()
        let seed = environment["IIDBATCH_FUZZ_SEED"].map { $0 == "random" ? system.next() : UInt64($0) ?? 31 } ?? 31
        var cases = environment["IIDBATCH_FUZZ_CASES"].flatMap { Int($0) } ?? 3_000
        // Each case has a seed of its own, drawn from the run's; one case is replayed alone.
        let replayed = environment["IIDBATCH_FUZZ_CASE"].flatMap { UInt64($0) }
        if replayed != nil { cases = 1 }
        // Seconds of CPU: off the cooperative pool (see `onOwnThread`).
        let (tally, failures, problems) = await onOwnThread { [cases] () -> ([String: Int], Int, [String]) in
            var caseSeeds = SplitMix64(seed: seed)
            var tally: [String: Int] = [:]
            var failures = 0
            var problems: [String] = []
            for _ in 0..<cases {
                let caseSeed = replayed ?? caseSeeds.next()
                var generator = JSONFuzzGenerator(seed: caseSeed)
                let fuzzCase = generator.makeCase()
                let (outcomes, problem) = Self.check(fuzzCase)
                for outcome in outcomes { tally[outcome, default: 0] += 1 }
                guard let problem else { continue }
                failures += 1
                if failures <= 20 {
                    problems.append(
                        """
                        \(problem)
                          case: \(fuzzCase)
                          replay: IIDBATCH_FUZZ_CASE=\(caseSeed) swift test --skip-build --filter JSONDifferentialFuzzTests
                        """)
                }
            }
            return (tally, failures, problems)
        }
        for problem in problems { Issue.record("\(problem)") }
        let counts = tally.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; ")
        print("JSON fuzz: \(replayed.map { "case \($0)" } ?? "seed \(seed)"), \(cases) cases, \(failures) failed; \(counts)")
        // The cases must exercise both sides: a generator that only made garbage (or only
        // valid documents) would agree with anything.
        if cases >= 1_000 {
            #expect(tally["both accepted", default: 0] > cases / 10, "\(counts)")
            #expect(tally["both refused", default: 0] > cases / 4, "\(counts)")
            #expect(tally[FoundationJSONDifference.repeatedName.rawValue, default: 0] > cases / 50, "\(counts)")
        }
    }

    /// The outcomes of one case (for the tally) and what is wrong with it, if anything.
    static func check(_ fuzzCase: JSONFuzzCase) -> (outcomes: [String], problem: String?) {
        let bytes = fuzzCase.bytes
        let spelled = FoundationJSONDifference.foundationSpelling(of: bytes)
        let (outcome, problem) = check(fuzzCase, foundationBytes: spelled ?? bytes)
        return (spelled == nil ? [outcome] : [outcome, FoundationJSONDifference.byteOrderMarkInString.rawValue], problem)
    }

    /// The outcome of one case whose bytes Foundation is given as `foundationBytes`, and what is
    /// wrong with it, if anything.
    private static func check(_ fuzzCase: JSONFuzzCase, foundationBytes: [UInt8]) -> (outcome: String, problem: String?) {
        let bytes = fuzzCase.bytes
        let ours = Result { () throws(JSONValue.ParseError) in try JSONValue.parse(bytes: bytes) }
        if let problem = membersProblem(bytes, parsed: ours) { return ("parseMembers differs", problem) }
        if case .failure(let error) = ours {
            guard (0...bytes.count).contains(error.offset) else { return ("bad refusal", "offset outside the document: \(error)") }
            guard error.description.utf8.count <= 200 else { return ("bad refusal", "a refusal of \(error.description.utf8.count) bytes") }
        }
        let theirs = Result { try JSONSerialization.jsonObject(with: Data(foundationBytes), options: .fragmentsAllowed) }
        switch (ours, theirs) {
        case (.success(let value), .success(let foundation)):
            if fuzzCase.repeatsName { return ("both accepted", "accepted a document that repeats a member name: \(show(value))") }
            if let difference = value.difference(from: foundation) { return ("both accepted", "the values differ at \(difference)") }
            return ("both accepted", nil)
        case (.failure, .failure):
            return ("both refused", nil)
        case (.success(let value), .failure(let error)):
            return ("only Foundation refused", "we accepted \(show(value)); Foundation refused: \(error)")
        case (.failure(let error), .success(let foundation)):
            guard let difference = FoundationJSONDifference.explaining(error, of: bytes) else {
                return ("only we refused", "we refused (\(error)); Foundation accepted \(show(foundation))")
            }
            return (difference.rawValue, nil)
        }
    }

    /// What `parseMembers` does differently from `parse` on the same bytes, if anything: it must
    /// read an object to the same value, give nil for anything else, and refuse exactly where
    /// and why `parse` does.
    private static func membersProblem(_ bytes: [UInt8], parsed: Result<JSONValue, JSONValue.ParseError>) -> String? {
        let members = Result { () throws(JSONValue.ParseError) in try JSONValue.parseMembers(bytes: bytes) }
        switch (parsed, members) {
        case (.success(.object(let object)), .success(let read?)):
            return JSONValue.object(read.mapValues(\.value)) == .object(object) ? nil : "parseMembers read \(show(read)), parse \(show(object))"
        case (.success(.object), .success(nil)):
            return "parseMembers gave nil for an object"
        case (.success, .success(let read)):
            return read == nil ? nil : "parseMembers read a non-object as \(show(read!))"
        case (.failure(let expected), .failure(let error)):
            return error.offset == expected.offset && error.reason == expected.reason ? nil : "parseMembers refused with \(error), parse with \(expected)"
        default:
            return "parse gave \(show(parsed)), parseMembers \(show(members))"
        }
    }

    /// A value for a failure message, cut short.
    private static func show(_ value: Any) -> String {
        let text = String(describing: value)
        return text.utf8.count <= 300 ? text : String(decoding: text.utf8.prefix(300), as: UTF8.self) + "…"
    }
}
