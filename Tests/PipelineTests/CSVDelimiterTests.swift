import Foundation
import Pipeline
import Testing

/// `iidbatch submit --csv-delimiter`: the names it takes, the fields cut on it, and errors that
/// name the bad value (issue 32).
@Suite("submit: the CSV delimiter")
struct CSVDelimiterTests {
    @Test("',' ';' '|' and tab (written 'tab', '\\t' or a tab character) are taken; anything else is refused by name")
    func names() throws {
        #expect(try CSVDelimiter(",") == .comma)
        #expect(try CSVDelimiter(";") == .semicolon)
        #expect(try CSVDelimiter("|") == .pipe)
        for tab in ["tab", "\\t", "\t"] { #expect(try CSVDelimiter(tab) == .tab) }
        #expect(CSVDelimiter.tab.description == "tab" && CSVDelimiter.semicolon.description == ";")
        for bad in ["", ":", ";;", "TAB", "comma", "\n"] {
            #expect(throws: CSVDelimiterError(value: bad)) { try CSVDelimiter(bad) }
        }
        #expect(CSVDelimiterError(value: ":").description == "':' is not a CSV delimiter; use ',', ';', '|' or 'tab' (also written '\\t')")
        #expect(CSVDelimiterError(value: "\n").description.hasPrefix("'\\n' is not a CSV delimiter"), "a control character shows escaped")
    }

    @Test("an Excel CSV with ';' (BOM, CRLF, a quoted field holding ';') reads by column name; a ',' inside a field is text")
    func semicolon() throws {
        let text = "\u{FEFF}user;token;note\r\nu1;tok-a;\"x; y\"\r\nu2;\"tok-b\";a,b\r\nu3\r\nu4;\"tok-c\"z\r\n"
        let list = try ItemList(Data(text.utf8), format: .csv(column: "token", delimiter: .semicolon), op: .topicsSubscribe)
        #expect(list.items == ["tok-a", "tok-b"])
        #expect(list.badLines.map(\.line) == [4, 5])
        #expect(list.badLines[0].reason == "has 1 columns, the item is in column 2")
        #expect(list.badLines[1].reason == "text after a closing quote")
        let numbered = try ItemList(Data(text.utf8), format: .csv(column: "3", delimiter: .semicolon), op: .topicsSubscribe)
        #expect(numbered.items == ["a,b"], "a ',' is text when ';' delimits")
        #expect(numbered.badLines.map(\.line) == [2, 4, 5])
        #expect(numbered.badLines[0].reason.hasPrefix("'x; y' must not contain whitespace"), "the quoted ';' stayed inside its field")
    }

    @Test("tab- and pipe-separated files")
    func tabAndPipe() throws {
        let tabbed = try ItemList(Data("fid\tuser\nfid-1\tu1\nfid-2\tu2\n".utf8), format: .csv(column: "fid", delimiter: .tab), op: .installationsDelete)
        #expect(tabbed.items == ["fid-1", "fid-2"] && tabbed.badLines.isEmpty)
        let piped = try ItemList(Data("user|fid\nu1|fid-1\n".utf8), format: .csv(column: "fid", delimiter: .pipe), op: .installationsDelete)
        #expect(piped.items == ["fid-1"] && piped.badLines.isEmpty)
        // The default is still ',': a ';' file read without the option is refused, not read as
        // one column (CSVWrongDelimiterTests).
        #expect(throws: ItemListError.wrongDelimiter(header: "a;b", used: .comma, seen: .semicolon)) {
            try ItemList(Data("a;b\n1;2\n".utf8), format: .csv(column: "1"), op: .topicsSubscribe)
        }
    }

    @Test("a missing column is named with the header as read")
    func missingColumn() {
        #expect(throws: ItemListError.noSuchColumn("token", header: ["user", "fid"])) {
            try ItemList(Data("user,fid\nu1,f1\n".utf8), format: .csv(column: "token"), op: .topicsSubscribe)
        }
        #expect(ItemListError.noSuchColumn("token", header: ["user", "fid"]).description == "no column 'token' in the CSV header (user,fid)")
    }
}
