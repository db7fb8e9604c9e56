import Foundation
import Pipeline
import Testing

@Suite("submit: reading item files and cutting them into records")
struct SubmitInputTests {
    @Test("one item per line: blank lines skipped and counted, bad lines reported by number")
    func lines() throws {
        let text = "tok-1\n  tok-2  \n\ntok 3\r\ntok-4\r\n\u{7}bell\n"
        let list = try ItemList(Data(text.utf8), format: .lines, op: .topicsSubscribe)
        #expect(list.items == ["tok-1", "tok-2", "tok-4"])
        #expect(list.lines == [1, 2, 5])
        #expect(list.blankLines == 1)
        #expect(list.badLines.map(\.line) == [4, 6])
        #expect(list.badLines[0].description.hasPrefix("line 4: 'tok 3' must not contain whitespace"))
    }

    @Test("an empty file, a file of blank lines, or a CSV header alone says 'no items' (issue 14)")
    func noItems() {
        for (text, format) in [("", ItemList.Format.lines), ("\n  \n\r\n", .lines), ("user,token\n", .csv(column: "token"))] {
            #expect(throws: ItemListError.noItems) { try ItemList(Data(text.utf8), format: format, op: .topicsSubscribe) }
        }
        #expect(ItemListError.noItems.description.hasPrefix("no items"))
    }

    @Test("CSV: the named or numbered column under a header; quoting; short and broken rows are bad lines")
    func csv() throws {
        let text = "user,token,note\nu1,tok-a,x\nu2,\"tok-b\",\"a, b\"\nu3\nu4,\"tok-c,x\n"
        let named = try ItemList(Data(text.utf8), format: .csv(column: "token"), op: .topicsSubscribe)
        #expect(named.items == ["tok-a", "tok-b"])
        #expect(named.badLines.map(\.line) == [4, 5])
        #expect(named.badLines[1].reason == "unterminated quoted field")
        let numbered = try ItemList(Data(text.utf8), format: .csv(column: "1"), op: .topicsSubscribe)
        #expect(numbered.items == ["u1", "u2", "u3"] && numbered.badLines.map(\.line) == [5])
        #expect(throws: ItemListError.noSuchColumn("fid", header: ["user", "token", "note"])) {
            try ItemList(Data(text.utf8), format: .csv(column: "fid"), op: .topicsSubscribe)
        }
    }

    @Test("CSV: a delimiter or quote is cut on by itself, a combining mark after it or not (as any CSV reader does, and as receipts quote)")
    func csvCutsOnScalars() throws {
        let text = "token,user\ntok-a,\u{301}u1\n\"tok-b\",\"q\"\"\u{301}\"\n\"tok-c\",\"x\",\u{301}\n"
        let list = try ItemList(Data(text.utf8), format: .csv(column: "token"), op: .topicsSubscribe)
        #expect(list.items == ["tok-a", "tok-b", "tok-c"] && list.badLines.isEmpty, "\(list.items) \(list.badLines)")
        let users = try ItemList(Data(text.utf8), format: .csv(column: "2"), op: .topicsSubscribe)
        #expect(
            users.items.map { Array($0.unicodeScalars) } == [Array("\u{301}u1".unicodeScalars), Array("q\"\u{301}".unicodeScalars), Array("x".unicodeScalars)])
    }

    @Test("a CSV saved by Excel as UTF-8 (a byte order mark first) reads its header's first column by name (issue 32)")
    func csvWithByteOrderMark() throws {
        let text = "\u{FEFF}token,user\r\ntok-a,u1\r\ntok-b,u2\r\n"
        let list = try ItemList(Data(text.utf8), format: .csv(column: "token"), op: .topicsSubscribe)
        #expect(list.items == ["tok-a", "tok-b"] && list.badLines.isEmpty)
        let lines = try ItemList(Data("\u{FEFF}tok-a\ntok-b\n".utf8), format: .lines, op: .topicsSubscribe)
        #expect(lines.items == ["tok-a", "tok-b"], "the mark is not part of the first item")
    }

    @Test("APNs imports take hex device tokens only; non-UTF-8 input is refused as a whole")
    func apnsAndEncoding() throws {
        let list = try ItemList(Data("\(String(repeating: "ab", count: 32))\nnot-hex\n".utf8), format: .lines, op: .apnsImport)
        #expect(list.items.count == 1 && list.badLines.map(\.line) == [2])
        #expect(throws: ItemListError.notUTF8) { try ItemList(Data([0x74, 0xff, 0xfe, 0x0a]), format: .lines, op: .topicsSubscribe) }
        // Hex is ASCII hex: fullwidth digits are no APNs token.
        #expect(ItemList.problem(with: "\u{FF41}\u{FF42}", op: .apnsImport) != nil)
        #expect(ItemList.problem(with: "AbCdEf09", op: .apnsImport) == nil)
    }

    @Test(
        "a derived id prefix is the first 64 bits of the SHA-256 of the work's parts, each ended by 0xFF (collision-resistant: an item file cannot be made to give another batch's prefix)"
    )
    func derivedPrefixIsSHA256() {
        // hashlib.sha256(b"topics.subscribe\xfftopic=news\xff1000\xffa\xffb\xff").hexdigest()[:16]
        #expect(SubmitPlan(op: .topicsSubscribe, target: .topic("news"), recordSize: 1_000, items: ["a", "b"]).idPrefix == "ts-5bfbfbde1dd19f04")
    }

    @Test("a CSV header that cannot be read refuses the file: the next line taken for it would lose its item without a trace")
    func badHeader() throws {
        do {
            _ = try ItemList(Data("\"fid\nfid-A\nfid-B\n".utf8), format: .csv(column: "1", delimiter: .comma), op: .installationsDelete)
            Issue.record("a file whose header cannot be read was taken")
        } catch {
            guard case .badHeader(let line, _) = error else { return #expect(Bool(false), "\(error)") }
            #expect(line == 1)
        }
        // A bad line after the header is one bad line.
        let list = try ItemList(Data("fid\n\"x\nfid-B\n".utf8), format: .csv(column: "1", delimiter: .comma), op: .installationsDelete)
        #expect(list.items == ["fid-B"] && list.badLines.map(\.line) == [2])
    }

    @Test("items are refused by the worker's identifier rule: a control (C1 too) or format character, '/', and a line past the stream-safe limit")
    func identifierRule() throws {
        for item in ["fid\u{9B}x", "fid-abc\u{200B}", "fid\u{202E}cba", "a/b", "a\u{1}"] {
            #expect(ItemList.problem(with: item, op: .installationsDelete) != nil, "\(item.debugDescription)")
        }
        let marks = "a" + String(repeating: "\u{301}\u{316}", count: 200_000)
        let list = try ItemList(Data("fid-A\n\(marks)\nfid-B\n".utf8), format: .lines, op: .installationsDelete)
        #expect(list.items == ["fid-A", "fid-B"] && list.badLines.map(\.line) == [2])
        #expect(list.badLines.first?.reason.contains("stream-safe") == true)
    }

    @Test("records of the configured size with ids that depend only on the work")
    func plan() {
        let items = (1...2_500).map { "tok-\($0)" }
        let plan = SubmitPlan(op: .topicsSubscribe, target: .topic("movies"), recordSize: 1_000, items: items)
        #expect(plan.recordCount(items: items.count) == 3)
        let requests = (1...3).map { plan.request($0, of: items) }
        #expect(requests.map(\.items.count) == [1_000, 1_000, 500])
        #expect(requests.flatMap(\.items) == items)
        #expect(requests[0].id == plan.idPrefix + "-000001" && requests[0].recordKey == "movies")
        #expect(SubmitPlan(op: .topicsSubscribe, target: .topic("movies"), recordSize: 1_000, items: items).idPrefix == plan.idPrefix)
        #expect(SubmitPlan(op: .topicsSubscribe, target: .topic("series"), recordSize: 1_000, items: items).idPrefix != plan.idPrefix)
        #expect(SubmitPlan(op: .topicsSubscribe, target: .topic("movies"), recordSize: 1_000, items: items.dropLast() + ["tok-x"]).idPrefix != plan.idPrefix)
        #expect(plan.idPrefix.hasPrefix("ts-") && plan.idPrefix.count == 19)
    }

    @Test("an id's number under a prefix is the n whose id it is exactly, else none")
    func idNumber() {
        for number in [1, 7, 999_999, 1_000_000, 12_345_678] {
            #expect(SubmitPlan.number(of: SubmitPlan.id(prefix: "ts-ab", number: number), prefix: "ts-ab") == number)
        }
        for id in ["ts-ab-1", "ts-ab-0000001", "ts-ab-000000", "ts-ab-", "ts-ab", "ts-ab-00000x", "ts-abc-000001", "xts-ab-000001", "ts-ab-+00001"] {
            #expect(SubmitPlan.number(of: id, prefix: "ts-ab") == nil, "\(id)")
        }
        #expect(SubmitPlan.number(of: "a/b-000002", prefix: "a/b") == 2)
    }

    @Test("--id-prefix must not be empty (its manifest could not be read back) and keeps ids within 512 bytes")
    func idPrefixProblems() {
        #expect(SubmitPlan.problem(withIDPrefix: "") == "must not be empty")
        #expect(SubmitPlan.problem(withIDPrefix: "cafe\u{301}")?.contains("(NFC)") == true)
        #expect(SubmitPlan.problem(withIDPrefix: "caf\u{E9}") == nil)
        #expect(SubmitPlan.problem(withIDPrefix: String(repeating: "p", count: 493)) == nil)
        let long = String(repeating: "p", count: 494)
        #expect(SubmitPlan.problem(withIDPrefix: long)?.contains("494 bytes") == true)
        #expect(SubmitPlan.id(prefix: String(repeating: "p", count: 493), number: Int(1e17)).utf8.count <= RequestID.maxBytes)
    }
}
