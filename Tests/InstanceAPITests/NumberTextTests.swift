import Testing

@testable import InstanceAPI

/// `NumberText`: what `String(format:)` wrote, without it (it is not safe from several threads
/// on Linux, swiftlang/swift-corelibs-foundation#5152, and crashed a test run).
@Suite("Numbers as text without String(format:)")
struct NumberTextTests {
    @Test("zero-padded digits in base 10 and 16, a sign before the padding, text wider than the width kept whole")
    func digits() {
        #expect(NumberText.digits(7, width: 6) == "000007")
        #expect(NumberText.digits(1_234_567, width: 3) == "1234567")
        #expect(NumberText.digits(255, radix: 16, width: 2) == "ff")
        #expect(NumberText.digits(UInt8(10), radix: 16, width: 2) == "0a")
        #expect(NumberText.digits(0xa000, radix: 16, width: 64) == String(repeating: "0", count: 60) + "a000")
        #expect(NumberText.digits(UInt64.max, radix: 16, width: 64).hasSuffix("ffffffffffffffff"))
        #expect(NumberText.digits(-42, width: 5) == "-00042")
        #expect(NumberText.digits(0, width: 0) == "0")
    }

    @Test("fixed decimals, rounded half away from zero, with their zeros; non-finite values named")
    func fixed() {
        #expect(NumberText.fixed(2.345, places: 1) == "2.3")
        #expect(NumberText.fixed(2.35, places: 1) == "2.4")
        #expect(NumberText.fixed(0.05, places: 2) == "0.05")
        #expect(NumberText.fixed(1.0, places: 3) == "1.000")
        #expect(NumberText.fixed(1_500, places: 0) == "1500")
        #expect(NumberText.fixed(99.96, places: 1) == "100.0")
        #expect(NumberText.fixed(-0.04, places: 1) == "0.0")
        #expect(NumberText.fixed(-3.25, places: 1) == "-3.3")
        #expect(NumberText.fixed(.nan, places: 1) == "nan")
        #expect(NumberText.fixed(-.infinity, places: 1) == "-inf")
    }

    @Test("many threads at once write the same text", arguments: 0..<8)
    func concurrent(seed: Int) async {
        await withTaskGroup(of: Bool.self) { group in
            for n in 0..<200 {
                group.addTask { NumberText.digits(n + seed, width: 6) == String(repeating: "0", count: 6 - String(n + seed).count) + String(n + seed) }
            }
            for await same in group { #expect(same) }
        }
    }
}
