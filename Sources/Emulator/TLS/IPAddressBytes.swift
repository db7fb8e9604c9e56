/// The network-order bytes of an IPv4 or IPv6 address written as text, as an IP
/// subject-alternative name holds them. Pure Swift: no C resolver.
enum IPAddressBytes {
    /// The 4 bytes of a dotted-decimal IPv4 address, the 16 of an IPv6 one (`::` allowed, an
    /// IPv4 tail too, brackets and a zone not), or nil when `text` is neither.
    static func parse(_ text: String) -> [UInt8]? {
        if let v4 = parseV4(Substring(text)) { return v4 }
        return text.contains(":") ? parseV6(text) : nil
    }

    private static func parseV4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy(\.isASCII), let value = UInt8(part) else { return nil }
            bytes.append(value)
        }
        return bytes
    }

    private static func parseV6(_ text: String) -> [UInt8]? {
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt8]? {
            guard !part.isEmpty else { return [] }
            var bytes: [UInt8] = []
            let fields = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, field) in fields.enumerated() {
                if index == fields.count - 1, field.contains("."), let v4 = parseV4(field) {
                    bytes += v4
                    continue
                }
                guard (1...4).contains(field.count), let value = UInt16(field, radix: 16) else { return nil }
                bytes += [UInt8(value >> 8), UInt8(value & 0xFF)]
            }
            return bytes
        }
        guard let head = groups(halves[0]) else { return nil }
        if halves.count == 1 { return head.count == 16 ? head : nil }
        guard let tail = groups(halves[1]), head.count + tail.count <= 14 else { return nil }
        return head + [UInt8](repeating: 0, count: 16 - head.count - tail.count) + tail
    }
}
