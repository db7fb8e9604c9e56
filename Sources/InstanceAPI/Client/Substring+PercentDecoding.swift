extension Substring {
    /// The text with each `%XY` replaced by the byte it names, as Foundation's
    /// `removingPercentEncoding` does: nil when a `%` is not followed by two hex digits or the
    /// decoded bytes are not UTF-8. Text without `%` is returned as it is, without a copy through
    /// Foundation (the emulator decodes every path segment of every call, and Foundation's
    /// version was a tenth of its CPU at 3,000 calls/s).
    package var percentDecoded: String? {
        guard utf8.contains(UInt8(ascii: "%")) else { return String(self) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(Self.hexValue), let low = iterator.next().flatMap(Self.hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The value of one hex digit's byte, either case; nil for any other byte.
    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
