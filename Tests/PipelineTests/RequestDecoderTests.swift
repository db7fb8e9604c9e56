import Foundation
import InstanceAPI
import Pipeline
import TestSupport
import Testing

@Suite("Request decoding and validation")
struct RequestDecoderTests {
    let decoder = RequestDecoder(maxRecordBytes: 4_096, maxItems: 1_000)

    func decode(_ text: String) -> Result<PipelineRequest, RequestRejection> { decoder.decode(Array(text.utf8)) }

    @Test(
        "every op decodes, and its wire form decodes back to the same request",
        arguments: [
            PipelineRequest(id: "r1", op: .installationsDelete, target: .subject("user-42"), items: ["cR5dLwyqQh2wVz0W3Jc8ak"]),
            PipelineRequest(id: "r2", op: .installationsDelete, target: .subject(nil), items: ["a", "b"]),
            PipelineRequest(id: "r3", op: .topicsSubscribe, target: .topic("movies"), items: ["t1", "t2"]),
            PipelineRequest(id: "r4", op: .topicsUnsubscribe, target: .topic("news"), items: ["t1"], replayOf: "r0", priorAttempts: 5),
            PipelineRequest(id: "r5", op: .apnsImport, target: .apns(application: "com.example", sandbox: true), items: ["abcd"]),
            PipelineRequest(id: "r6", op: .groupsCreate, target: .group(name: "user-1", key: nil), items: ["t1"]),
            PipelineRequest(id: "r7", op: .groupsAdd, target: .group(name: "user-1", key: "APA91b"), items: ["t2"]),
            PipelineRequest(id: "r8", op: .groupsRemove, target: .group(name: "user-1", key: "APA91b"), items: ["t2"]),
            PipelineRequest(id: "r9", op: .instancesInfo, target: .info(details: true), items: ["t1"]),
            PipelineRequest(id: "r10", op: .groupsExport, target: .export(byKey: false), items: ["user-1", "user-2"]),
            PipelineRequest(id: "r11", op: .groupsExport, target: .export(byKey: true), items: ["APA91b"]),
        ])
    func roundTrip(request: PipelineRequest) throws {
        #expect(try decoder.decode([UInt8](request.jsonBody())).get() == request)
    }

    @Test(
        "a member name is one of the op's by its bytes: a name Swift reads as equal (a Kelvin sign for K) is unknown, as every other JSON reader and the schema see it"
    )
    func memberNamesByBytes() {
        for text in [
            #"{"id": "x", "op": "groups.add", "notificationKeyName": "g", "notification\#u{212A}ey": "APA91b", "tokens": ["t"]}"#,
            #"{"id": "x", "op": "groups.create", "notification\#u{212A}eyName": "g", "tokens": ["t"]}"#,
        ] {
            guard case .failure(let rejection) = decode(text) else {
                Issue.record("decoded: \(text)")
                continue
            }
            #expect(rejection.field?.unicodeScalars.contains("\u{212A}") == true, "\(rejection)")
        }
    }

    @Test("a /topics/ prefix is accepted and removed")
    func topicPrefix() throws {
        let request = try decode(#"{"id": "a", "op": "topics.subscribe", "topic": "/topics/movies", "tokens": ["t"]}"#).get()
        #expect(request.target == .topic("movies"))
    }

    @Test(
        "each kind of bad input is rejected with the field and value named, the id kept when readable",
        arguments: [
            ("not json", nil, "malformed JSON", nil),
            ("[1, 2]", nil, "must be a JSON object", nil),
            (#"{"op": "topics.subscribe", "topic": "m", "tokens": ["t"]}"#, "id", "is required", nil),
            (#"{"id": 7, "op": "topics.subscribe", "topic": "m", "tokens": ["t"]}"#, "id", "got 7", nil),
            (#"{"id": "x", "op": "topics.explode", "topic": "m", "tokens": ["t"]}"#, "op", "unknown op 'topics.explode'", "x"),
            (#"{"id": "x", "op": "topics.subscribe", "tokens": ["t"]}"#, "topic", "is required", "x"),
            (#"{"id": "x", "op": "topics.subscribe", "topic": "bad name", "tokens": ["t"]}"#, "topic", "'bad name' is not a topic name", "x"),
            (#"{"id": "x", "op": "topics.subscribe", "topic": "m", "tokens": []}"#, "tokens", "must not be empty", "x"),
            (#"{"id": "x", "op": "topics.subscribe", "topic": "m", "tokens": "t"}"#, "tokens", "must be an array", "x"),
            (#"{"id": "x", "op": "topics.subscribe", "topic": "m", "tokens": ["t", 42]}"#, "tokens[1]", "got 42", "x"),
            (#"{"id": "x", "op": "topics.subscribe", "topic": "m", "tokens": ["t", ""]}"#, "tokens[1]", "non-empty string", "x"),
            (#"{"id": "x", "op": "topics.subscribe", "topic": "m", "tokens": ["t", "", 42]}"#, "tokens[1]", "got \"\"", "x"),
            (#"{"id": "x", "op": "topics.subscribe", "topic": "m", "tokens": [null, ""]}"#, "tokens[0]", "got null", "x"),
            (#"{"id": "x", "op": "installations.delete", "tokens": ["t"]}"#, "installations", "is required", "x"),
            (#"{"id": "x", "op": "apns.import", "application": "a", "apnsTokens": ["ab"]}"#, "sandbox", "is required", "x"),
            (#"{"id": "x", "op": "apns.import", "application": "a", "sandbox": "yes", "apnsTokens": ["ab"]}"#, "sandbox", "must be true or false", "x"),
            (
                #"{"id": "x", "op": "groups.add", "notificationKeyName": "g", "notificationKey": "", "tokens": ["t"]}"#, "notificationKey",
                "non-empty string when present", "x"
            ),
            (
                #"{"id": "x", "op": "groups.create", "notificationKeyName": "g", "tokens": [\#((0..<21).map { "\"t\($0)\"" }.joined(separator: ","))]}"#,
                "tokens", "at most 20 members, got 21", "x"
            ),
            (#"{"id": "x", "op": "topics.subscribe", "topic": "m", "tokens": ["t"], "priorAttempts": -1}"#, "priorAttempts", "non-negative integer", "x"),
            (#"{"id": "x", "op": "groups.export", "tokens": ["g"]}"#, "groups", "is required", "x"),
            (#"{"id": "x", "op": "groups.export", "groupsBy": "id", "groups": ["g"]}"#, "groupsBy", "'id' is not notificationKeyName", "x"),
        ] as [(String, String?, String, String?)])
    func rejections(text: String, field: String?, reason: String, id: String?) {
        guard case .failure(let rejection) = decode(text) else {
            Issue.record("accepted: \(text)")
            return
        }
        #expect(rejection.field == field)
        #expect(rejection.reason.contains(reason), "\(rejection)")
        #expect(rejection.requestID == id)
    }

    @Test("oversized records and item lists are refused; arbitrary bytes never trap")
    func limits() {
        let big = #"{"id": "x", "op": "topics.subscribe", "topic": "m", "tokens": [""# + String(repeating: "a", count: 5_000) + #""]}"#
        #expect(decode(big).failureReason?.contains("exceeds the limit of 4096 bytes") == true)
        let many = RequestDecoder(maxItems: 3).decode(Array(#"{"id": "x", "op": "topics.subscribe", "topic": "m", "tokens": ["a","b","c","d"]}"#.utf8))
        #expect(many.failureReason?.contains("more than the limit of 3") == true)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let bytes = (0..<Int.random(in: 0...64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if case .success = decoder.decode(bytes) { Issue.record("random bytes accepted: \(bytes)") }
        }
    }
}

extension Result where Failure == RequestRejection {
    var failureReason: String? {
        if case .failure(let rejection) = self { return rejection.reason }
        return nil
    }
}

/// Issue 31, findings 4 and 7: what a hostile record can put in a rejection, and what it can make
/// the worker hold.
@Suite("Request decoding: ids bounded in bytes, unknown members refused, values quoted by bytes")
struct RequestDecoderBoundsTests {
    let decoder = RequestDecoder()

    func rejection(_ text: String) throws -> RequestRejection {
        guard case .failure(let rejection) = decoder.decode(Array(text.utf8)) else { throw FixtureFailure("accepted: \(text.prefix(200))") }
        return rejection
    }

    @Test("an id of up to 512 bytes is taken; a longer one is rejected naming the field and its length, and kept in its short form")
    func idBound() throws {
        let longest = String(repeating: "é", count: RequestID.maxBytes / 2)
        let taken = try decoder.decode(Array(#"{"id":"\#(longest)","op":"topics.subscribe","topic":"m","tokens":["t"]}"#.utf8)).get()
        #expect(taken.id == longest)
        let id = String(repeating: "a", count: 600_000)
        let refused = try rejection(#"{"id":"\#(id)","op":"topics.subscribe","topic":"m","tokens":["t"]}"#)
        #expect(refused.field == "id")
        #expect(refused.reason.hasPrefix("has 600000 bytes, more than the limit of 512"), "\(refused.reason.prefix(200))")
        #expect(refused.requestID == String(repeating: "a", count: 64) + "…sha256:ded93777580eeaa7d906cb0f16b9706b1000067eaf0f3b6c1d03a8bc6a15bf15")
        #expect(refused.op == .topicsSubscribe)
        #expect(refused.description.utf8.count <= RequestRejection.maxReasonBytes + 8)
        let replay = try rejection(#"{"id":"r","op":"topics.subscribe","topic":"m","tokens":["t"],"replayOf":"\#(id)"}"#)
        #expect(replay.field == "replayOf" && replay.reason.hasPrefix("has 600000 bytes") && replay.requestID == "r")
        // A replay refused for another field still names what it replays: its outcome is the
        // replay's, not a second outcome of the original.
        let refusedReplay = try rejection(#"{"id":"r","op":"topics.subscribe","topic":"no topic","tokens":["t"],"replayOf":"r"}"#)
        #expect(refusedReplay.field == "topic" && refusedReplay.replayOf == "r")
    }

    @Test(
        "an id or replayOf not in Unicode NFC is rejected, naming the field; the rejection carries neither, so no outcome is keyed by a string Swift calls equal to another id",
        arguments: [#"e\u0301"#, #"r-\u212A"#, #"\u212B"#, "e\u{301}"])
    func idsInNFC(id: String) throws {
        let refused = try rejection(#"{"id":"\#(id)","op":"topics.subscribe","topic":"m","tokens":["t"],"replayOf":"\#(id)"}"#)
        #expect(refused.field == "id")
        #expect(refused.reason.contains("is not in Unicode normalization form C (NFC)"), "\(refused.reason)")
        #expect(refused.requestID == nil && refused.replayOf == nil)
        #expect(refused.op == .topicsSubscribe)
        let replay = try rejection(#"{"id":"r","op":"topics.subscribe","topic":"m","tokens":["t"],"replayOf":"\#(id)"}"#)
        #expect(replay.field == "replayOf" && replay.requestID == "r" && replay.replayOf == nil)
        // Refused for another field, a record keeps its NFC id but not a replayOf that is not NFC.
        let other = try rejection(#"{"id":"r","op":"topics.subscribe","topic":"no topic","tokens":["t"],"replayOf":"\#(id)"}"#)
        #expect(other.requestID == "r" && other.replayOf == nil)
    }

    @Test(
        "an over-long id or replayOf of combining marks is refused for its length, named by its short form, never normalized (normalizing a long run of marks is quadratic)",
        .timeLimit(.minutes(1)))
    func longMarksNotNormalized() throws {
        // Stream-safe (30 marks a run: a longer one is refused as JSON) and not in NFC (U+0316
        // sorts before U+0301): 600,001 bytes.
        let marks =
            String(repeating: "a" + String(repeating: "\u{301}", count: 15) + String(repeating: "\u{316}", count: 15), count: 9_836)
            + String(repeating: "a", count: 5)
        #expect(marks.utf8.count == 600_001)
        let refused = try rejection(#"{"id":"\#(marks)","op":"topics.subscribe","topic":"m","tokens":["t"]}"#)
        #expect(refused.field == "id" && refused.reason.hasPrefix("has 600001 bytes") && refused.requestID == RequestID.shortForm(marks))
        let replay = try rejection(#"{"id":"r","op":"topics.subscribe","topic":"m","tokens":["t"],"replayOf":"\#(marks)"}"#)
        #expect(replay.field == "replayOf" && replay.replayOf == RequestID.shortForm(marks))
        let other = try rejection(#"{"id":"r","op":"topics.subscribe","topic":"no topic","tokens":["t"],"replayOf":"\#(marks)"}"#)
        #expect(other.field == "topic" && other.replayOf == RequestID.shortForm(marks))
    }

    @Test("an id in NFC is taken whatever its script: composed é, the Angstrom sign's NFC Å, CJK, emoji")
    func nfcIDsTaken() throws {
        for id in ["caf\u{E9}", "\u{C5}", "\u{4E2D}\u{6587}-1", "\u{1F600}", #"caf\u00e9"#] {
            let taken = try decoder.decode(Array(#"{"id":"\#(id)","op":"topics.subscribe","topic":"m","tokens":["t"],"replayOf":"\#(id)"}"#.utf8)).get()
            #expect(RequestID.isNormalized(taken.id) && taken.replayOf == taken.id, "\(id)")
        }
        #expect(!RequestID.isNormalized("cafe\u{301}") && !RequestID.isNormalized("\u{212A}") && RequestID.isNormalized("K"))
    }

    @Test("the short form of an over-long id keeps its first 64 bytes, cut between scalars, and its SHA-256; a short id is itself")
    func shortForm() {
        #expect(RequestID.shortForm("r-1") == "r-1")
        let id = String(repeating: "é", count: 300)  // 600 bytes
        #expect(RequestID.shortForm(id) == String(repeating: "é", count: 32) + "…sha256:7250b66610f8b7dbd6f5e5426d2143bcba6d826cedb4bea8a358695da78db023")
        let odd = "x" + id  // the 64-byte cut falls inside an 'é': it goes back before it
        #expect(RequestID.shortForm(odd).hasPrefix("x" + String(repeating: "é", count: 31) + "…sha256:"))
    }

    @Test(
        "a member its op does not have is refused, naming it and the members the op has",
        arguments: [
            (#"{"id":"x","op":"topics.subscribe","topic":"m","tokens":["t"],"padding":"xxxx"}"#, "padding", "is not a member of topics.subscribe requests"),
            (
                #"{"id":"x","op":"installations.delete","installations":["f"],"subjet":"user-1"}"#, "subjet",
                "which have: batch, id, installations, op, priorAttempts, replayOf, subject"
            ),
            (#"{"id":"x","op":"topics.subscribe","topic":"m","tokens":["t"],"subject":"s","z":1}"#, "subject", "(and 1 more unknown members)"),
            (#"{"id":"x","op":"groups.export","groups":["g"],"details":true}"#, "details", "is not a member of groups.export requests"),
        ])
    func unknownMembers(text: String, field: String, reason: String) throws {
        let refused = try rejection(text)
        #expect(refused.field == field)
        #expect(refused.reason.contains(reason), "\(refused.reason)")
        #expect(refused.requestID == "x")
    }

    @Test("every member of every op is taken: a request with all of its op's members decodes")
    func everyMemberTaken() throws {
        let values: [String: String] = [
            "id": #""x""#, "subject": #""s""#, "topic": #""m""#, "application": #""a""#, "sandbox": "true", "notificationKeyName": #""n""#,
            "notificationKey": #""k""#, "details": "true", "groupsBy": #""notificationKey""#, "replayOf": #""r""#, "priorAttempts": "1",
            "batch": #""b""#,
        ]
        for op in RequestOp.allCases {
            let members = op.members.sorted().map { name in
                let value = name == "op" ? "\"\(op.rawValue)\"" : name == op.itemsField.rawValue ? #"["t"]"# : values[name]!
                return "\"\(name)\":\(value)"
            }
            if case .failure(let refused) = decoder.decode(Array("{\(members.joined(separator: ","))}".utf8)) { Issue.record("\(op): \(refused)") }
        }
    }

    @Test(
        "a value is quoted cut by bytes, not characters: 400 kB of characters with 30 marks each, or a 600 kB member name, leaves a reason of at most a kilobyte"
    )
    func quotesCutByBytes() throws {
        // Characters of an 'a' and 30 combining acute accents each, the most stream-safe text
        // holds (a longer run is refused as JSON: `streamUnsafe`): 400,001 bytes.
        let grapheme = String(repeating: "a" + String(repeating: "\u{301}", count: 30), count: 6_557) + String(repeating: "a", count: 24)
        #expect(grapheme.utf8.count == 400_001)
        for (text, field, length) in [
            (#"{"id":"x","op":"topics.subscribe","topic":"\#(grapheme)","tokens":["t"]}"#, "topic", 400_001),
            (#"{"id":"x","op":"\#(grapheme)","topic":"m","tokens":["t"]}"#, "op", 400_001),
            (#"{"id":"x","op":"groups.export","groupsBy":"\#(grapheme)","groups":["g"]}"#, "groupsBy", 400_001),
            (#"{"id":"x","op":"topics.subscribe","topic":"m","tokens":["t", 7],"priorAttempts":"\#(grapheme)"}"#, "tokens[1]", nil),
            (#"{"id":"x","op":"topics.subscribe","topic":"m","tokens":["t"],"priorAttempts":"\#(grapheme)"}"#, "priorAttempts", 400_001),
        ] as [(String, String, Int?)] {
            let refused = try rejection(text)
            #expect(refused.field == field)
            if let length { #expect(refused.reason.contains("(\(length) bytes)"), "\(refused.reason)") }
            #expect(refused.description.utf8.count <= 1_024, "\(refused.description.utf8.count) bytes")
        }
        let name = String(repeating: "n", count: 600_000)
        let member = try rejection(#"{"id":"x","op":"topics.subscribe","topic":"m","tokens":["t"],"\#(name)":1}"#)
        #expect(member.field == String(repeating: "n", count: 64) + "… (600000 bytes)")
        #expect(member.description.utf8.count <= 1_024)
    }

    @Test(
        "a record whose text holds more than 30 combining marks in a row (a value, a member name, an item) is refused as malformed JSON at once: Swift compared a megabyte of alternating marks in minutes"
    )
    func streamUnsafe() throws {
        let marks = "a" + String(repeating: "\u{301}\u{316}", count: 200_000)
        for text in [
            #"{"id":"x","op":"\#(marks)","topic":"m","tokens":["t"]}"#, #"{"\#(marks)":0,"id":"x","op":"topics.subscribe","topic":"m","tokens":["t"]}"#,
            #"{"id":"x","op":"topics.subscribe","topic":"m","tokens":["t","\#(marks)"]}"#,
            #"{"id":"x","op":"groups.export","groupsBy":"\#(marks)","groups":["g"]}"#,
        ] {
            let refused = try rejection(text)
            #expect(refused.field == nil && refused.reason.contains("stream-safe"), "\(refused.reason.prefix(300))")
        }
    }

    @Test("two items that are one text under canonical equivalence in other bytes are refused, naming both; the same bytes twice are taken")
    func canonicallyEqualItems() throws {
        let refused = try rejection(#"{"id":"e","op":"groups.export","groups":["g","caf\#u{E9}","cafe\#u{301}"]}"#)
        #expect(refused.field == "groups[2]" && refused.reason.contains("groups[1]"), "\(refused)")
        let kelvin = try rejection(#"{"id":"e","op":"instances.info","details":true,"tokens":["K","\#u{212A}"]}"#)
        #expect(kelvin.field == "tokens[1]")
        // Without details an info's outcome lists no topics by token: nothing to mistake.
        let plain = #"{"id":"e","op":"instances.info","tokens":["K","\#u{212A}"]}"#
        guard case .success = RequestDecoder().decode(Array(plain.utf8)) else { return #expect(Bool(false), "\(plain) refused") }
        for text in [
            #"{"id":"e","op":"groups.export","groups":["caf\#u{E9}","caf\#u{E9}","g"]}"#, #"{"id":"e","op":"groups.export","groups":["caf\#u{E9}","g"]}"#,
        ] {
            guard case .success = RequestDecoder().decode(Array(text.utf8)) else { return #expect(Bool(false), "\(text) refused") }
        }
    }

    @Test("groupsBy is compared by its bytes: a Kelvin sign (U+212A) for the K of notificationKey is refused, as other readers and the schema refuse it")
    func groupsByBytes() throws {
        let refused = try rejection(#"{"id":"x","op":"groups.export","groupsBy":"notification\#u{212A}ey","groups":["g"]}"#)
        #expect(refused.field == "groupsBy")
    }

    @Test("a quote is cut between Unicode scalars: the text stays valid, never past the bound")
    func quoteCut() {
        #expect(RequestRejection.quote("movies") == "'movies'")
        let accents = String(repeating: "é", count: 40)  // 80 bytes
        #expect(RequestRejection.quote(accents) == "'" + String(repeating: "é", count: 32) + "…' (80 bytes)")
        #expect(RequestRejection.quote("x" + accents, mark: "\"") == "\"x" + String(repeating: "é", count: 31) + "…\" (81 bytes)")
        let emoji = String(repeating: "👩‍👩‍👧‍👦", count: 10)  // 25 bytes each: scalars of 4 and 3 bytes
        let cut = RequestRejection.quote(emoji, mark: "")
        #expect(cut.utf8.count <= RequestRejection.maxQuotedBytes + "… (250 bytes)".utf8.count)
        #expect(cut.hasSuffix("… (250 bytes)") && emoji.unicodeScalars.starts(with: cut.unicodeScalars.dropLast(13)))
    }
}
