import Foundation
import Testing

@testable import WireJSON

/// The wire's time has four digits of year: a time before year 0 or after 9999 (a record's
/// producer chooses its timestamp; a forged manifest its `createdAt`) is written as the nearest
/// time the format holds, never a trap that ends the process.
@Suite("Wire times outside years 0-9999 are written at the format's ends, never trapped on")
struct WireDateRangeTests {
    @Test(
        "before year 0, after 9999, infinite or NaN: the nearest end of the format",
        arguments: [
            (-62_167_219_260.0, "0000-01-01T00:00:00.000Z"), (-1e300, "0000-01-01T00:00:00.000Z"), (-Double.infinity, "0000-01-01T00:00:00.000Z"),
            (Double.nan, "0000-01-01T00:00:00.000Z"), (253_402_300_800.0, "9999-12-31T23:59:59.000Z"), (1e300, "9999-12-31T23:59:59.000Z"),
            (Double.infinity, "9999-12-31T23:59:59.000Z"),
        ])
    func clamped(seconds: Double, expected: String) {
        #expect(WireDate.text(Date(timeIntervalSince1970: seconds)) == expected)
    }

    @Test("the format's own ends are written as themselves, and read back")
    func ends() {
        for text in ["0000-01-01T00:00:00.000Z", "9999-12-31T23:59:59.000Z", "0000-03-01T12:30:00.500Z"] {
            #expect(WireDate.parse(text).map(WireDate.text) == text)
        }
    }
}
