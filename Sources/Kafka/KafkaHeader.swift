/// One Kafka record header. Kafka allows repeated keys and null values; both are preserved.
public struct KafkaHeader: Sendable, Hashable {
    /// The header name.
    public var key: String
    /// The header value bytes, or nil for a null value.
    public var value: [UInt8]?

    /// A header with raw bytes.
    public init(key: String, value: [UInt8]?) {
        self.key = key
        self.value = value
    }

    /// A header whose value is the UTF-8 encoding of `value`.
    public init(key: String, string value: String) {
        self.init(key: key, value: Array(value.utf8))
    }

    /// The value decoded as UTF-8, or nil for a null value.
    public var stringValue: String? { value.map { String(decoding: $0, as: UTF8.self) } }
}

extension Array where Element == KafkaHeader {
    /// The value of the last header named `key` (by its bytes: any record's header names are
    /// read, and a `String` comparison of text with long runs of combining marks is quadratic),
    /// decoded as UTF-8.
    public func string(_ key: String) -> String? {
        last(where: { $0.key.utf8.elementsEqual(key.utf8) })?.stringValue
    }
}
