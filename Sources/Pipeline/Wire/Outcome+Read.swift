import Foundation
import WireJSON

extension Outcome {
    /// The most items an outcome's counts may hold, each and all together: more than any request
    /// can carry, and small enough that tools summing the counts of billions of outcomes never
    /// overflow.
    public static let mostCountedItems = Int(Int32.max)

    /// The outcome `value` holds, decoded with `decoder` (`Outcome.decoder()`); nil when it is not
    /// one, or when its counts are not an outcome's a worker writes (a count below 0, or more than
    /// `mostCountedItems` in all): tools read topics anyone may produce to, and a forged count
    /// must not trap their sums, nor make a batch's items done fewer than none.
    /// A record whose text is not stream-safe (`StreamSafeText`), which would hold a tool for
    /// minutes as its maps are hashed, is none either.
    public static func read(_ value: [UInt8], using decoder: JSONDecoder) -> Outcome? {
        if StreamSafeText.mayExceedLimit(json: value), (try? JSONValue.parse(bytes: value)) == nil { return nil }
        guard let outcome = try? decoder.decode(Outcome.self, from: Data(value)) else { return nil }
        var total = 0
        for count in outcome.counts.values {
            guard count >= 0, count <= mostCountedItems - total else { return nil }
            total += count
        }
        return outcome
    }

    /// The bytes of an outcome record that `read` accepted, as one line of text (`outcomes --json`
    /// prints one record per line). JSON has CR and LF only between its tokens (the decoder refuses
    /// them raw inside a string), so each becomes a space and the line means what the record does;
    /// a record already on one line is its bytes unchanged.
    public static func line(_ value: [UInt8]) -> String {
        guard value.contains(where: { $0 == 0x0A || $0 == 0x0D }) else { return String(decoding: value, as: UTF8.self) }
        return String(decoding: value.map { $0 == 0x0A || $0 == 0x0D ? 0x20 : $0 }, as: UTF8.self)
    }
}
