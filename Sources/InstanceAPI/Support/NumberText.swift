/// Numbers as text without Foundation's `String(format:)`, which swift-corelibs-foundation does
/// not make safe to call from several threads at once (swiftlang/swift-corelibs-foundation#5152:
/// wrong text, or a crash, when tests or an emulator's request handlers format concurrently).
package enum NumberText {
    /// `value` in `radix` (lowercase digits), left-padded with zeros to at least `width`
    /// characters: `digits(7, width: 3)` is `007`, `digits(255, radix: 16, width: 4)` is `00ff`.
    /// A negative value keeps its sign before the padding.
    package static func digits(_ value: some BinaryInteger, radix: Int = 10, width: Int) -> String {
        let text = String(value.magnitude, radix: radix)
        let padded = String(repeating: "0", count: max(0, width - text.count)) + text
        return value < 0 ? "-" + padded : padded
    }

    /// `bytes` as lowercase hex, two digits each: how a SHA-256 digest or a token is written.
    package static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { digits($0, radix: 16, width: 2) }.joined()
    }

    /// `value` rounded to `places` decimals, half away from zero: `fixed(2.345, places: 1)` is
    /// `2.3`, `fixed(1_500, places: 0)` is `1500`. Not a number and the infinities read `nan`,
    /// `inf` and `-inf`.
    package static func fixed(_ value: Double, places: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
        var scale = 1.0
        for _ in 0..<max(0, places) { scale *= 10 }
        let scaled = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
        guard scaled < 9e18 else { return "\(value)" }
        let units = UInt64(scaled)
        let whole = units / UInt64(scale)
        let sign = value < 0 && units > 0 ? "-" : ""
        guard places > 0 else { return sign + String(whole) }
        return sign + String(whole) + "." + digits(units % UInt64(scale), width: places)
    }
}
