import Foundation
import Pipeline
import Testing

/// A CSV file cut on the wrong delimiter is refused as a whole, whatever column is asked for:
/// read with the default `--column 1`, an Excel `;` file's line `abc;Bob` would otherwise become
/// the item `abc;Bob` and be submitted as garbage.
@Suite("ItemList: a CSV header that is one column holding another delimiter")
struct CSVWrongDelimiterTests {
    @Test(
        "the header cut on the delimiter is one field that another accepted delimiter cuts: refused with the option to try, by name or number",
        arguments: [
            ("token;name\nabc;Bob\n", CSVDelimiter.comma, CSVDelimiter.semicolon), ("token\tname\nabc\tBob\n", .comma, .tab),
            ("token|name\nabc|Bob\n", .semicolon, .pipe), ("token,name\nabc,Bob\n", .semicolon, .comma),
        ])
    func refused(_ text: String, used: CSVDelimiter, seen: CSVDelimiter) {
        for column in ["1", "token", "name"] {
            #expect(throws: ItemListError.wrongDelimiter(header: String(text.prefix { $0 != "\n" }), used: used, seen: seen)) {
                try ItemList(Data(text.utf8), format: .csv(column: column, delimiter: used), op: .topicsSubscribe)
            }
        }
    }

    @Test("the message names the header, the delimiter used and the option to try")
    func message() {
        let error = ItemListError.wrongDelimiter(header: "token;name", used: .comma, seen: .semicolon)
        #expect(error.description == "the CSV header (token;name) is one column cut on ',' but holds ';': try --csv-delimiter ';'", "\(error)")
        let tab = ItemListError.wrongDelimiter(header: "a\tb", used: .comma, seen: .tab)
        #expect(tab.description.hasSuffix("holds '\\t': try --csv-delimiter 'tab'"), "\(tab)")
    }

    @Test("a one-column file whose header holds no other delimiter, or quotes it, is read as it is")
    func oneColumn() throws {
        let plain = try ItemList(Data("token\nabc\ndef\n".utf8), format: .csv(column: "1"), op: .topicsSubscribe)
        #expect(plain.items == ["abc", "def"])
        let quoted = try ItemList(Data("\"token;v2\"\nabc\n".utf8), format: .csv(column: "1"), op: .topicsSubscribe)
        #expect(quoted.items == ["abc"])
        // The column asked for by the header's whole name: the header is that one column.
        let named = try ItemList(Data("device;id\nabc\n".utf8), format: .csv(column: "device;id"), op: .topicsSubscribe)
        #expect(named.items == ["abc"])
    }

    @Test("the accepted delimiters have one owner: every one is parsed by its names and listed in the help text")
    func oneOwner() throws {
        #expect(CSVDelimiter.all == [.comma, .semicolon, .pipe, .tab])
        for delimiter in CSVDelimiter.all { #expect(try CSVDelimiter(delimiter.description) == delimiter) }
        #expect(CSVDelimiter.names == "',', ';', '|' or 'tab' (also written '\\t')")
    }
}
