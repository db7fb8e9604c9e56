/// A list of strings kept as one UTF-8 buffer and the end offset of each: the form a request's
/// items travel in, from the record they were read from to the call body they are written into.
///
/// Copying, slicing and appending cost a copy of bytes and offsets, never one allocation or
/// reference count per string, and a call body is written by copying byte ranges
/// (`JSONWriter.strings(_:)`). Reading an element makes a `String`; the hot path does not.
///
/// Guarantees: elements read back exactly as appended (valid UTF-8, in order); two lists are
/// equal when they hold the same strings in the same order; `isPlainJSON` is true exactly when no
/// byte of any element needs escaping in a JSON string.
public struct PackedStrings: Sendable, Hashable, RandomAccessCollection, ExpressibleByArrayLiteral, CustomStringConvertible, Codable {
    /// The elements' UTF-8 bytes, one after another.
    public private(set) var utf8: [UInt8] = []
    /// Where each element ends in `utf8`.
    private var ends: [Int] = []
    /// Whether no byte of `utf8` needs escaping in a JSON string.
    public private(set) var isPlainJSON = true

    /// An empty list.
    public init() {}

    /// An empty list with room for `count` strings of `bytes` bytes in all.
    public init(reservingCapacity count: Int, bytes: Int = 0) {
        ends.reserveCapacity(count)
        utf8.reserveCapacity(bytes)
    }

    /// A list of `strings`, in order.
    public init(_ strings: some Sequence<String>) {
        self.init()
        for string in strings { append(string) }
    }

    /// A list of the elements.
    public init(arrayLiteral elements: String...) { self.init(elements) }

    // MARK: - Collection

    /// 0.
    public var startIndex: Int { 0 }
    /// The number of strings.
    public var endIndex: Int { ends.count }

    /// Element `index` as a `String` (one allocation for a string past 15 bytes).
    public subscript(index: Int) -> String {
        String(decoding: utf8[byteRange(index)], as: UTF8.self)
    }

    /// The bytes of element `index` in `utf8`.
    public func byteRange(_ index: Int) -> Range<Int> {
        (index == 0 ? 0 : ends[index - 1])..<ends[index]
    }

    /// The number of UTF-8 bytes of element `index`.
    public func byteCount(_ index: Int) -> Int { byteRange(index).count }

    /// The elements, as an array of `String`s.
    public var strings: [String] { map { $0 } }

    /// The elements as a JSON array, for logs and test failures.
    public var description: String { strings.description }

    // MARK: - Building

    /// Appends `string`.
    public mutating func append(_ string: String) {
        appendBytes(string.utf8)
    }

    /// Appends one element whose UTF-8 is `bytes`; the caller guarantees valid UTF-8.
    mutating func appendBytes(_ bytes: some Collection<UInt8>) {
        let start = utf8.count
        utf8.append(contentsOf: bytes)
        ends.append(utf8.count)
        if isPlainJSON { isPlainJSON = Self.isPlain(utf8[start...]) }
    }

    /// Appends element `index` of `other`.
    public mutating func append(_ index: Int, of other: PackedStrings) {
        let element = other.utf8[other.byteRange(index)]
        utf8.append(contentsOf: element)
        ends.append(utf8.count)
        if isPlainJSON && !other.isPlainJSON { isPlainJSON = Self.isPlain(element) }
    }

    /// Appends every element of `other`, in order.
    public mutating func append(contentsOf other: PackedStrings) {
        let base = utf8.count
        utf8.append(contentsOf: other.utf8)
        ends.append(contentsOf: other.ends.lazy.map { $0 + base })
        isPlainJSON = isPlainJSON && other.isPlainJSON
    }

    /// The elements in `range`, as a list of their own.
    public func extracting(_ range: Range<Int>) -> PackedStrings {
        var part = PackedStrings()
        guard !range.isEmpty else { return part }
        let base = range.lowerBound == 0 ? 0 : ends[range.lowerBound - 1]
        part.utf8 = Array(utf8[base..<ends[range.upperBound - 1]])
        part.ends = ends[range].map { $0 - base }
        part.isPlainJSON = isPlainJSON || Self.isPlain(part.utf8[...])
        return part
    }

    /// Removes the first `count` elements.
    public mutating func removeFirst(_ count: Int) {
        guard count > 0 else { return }
        let base = ends[count - 1]
        utf8.removeFirst(base)
        ends.removeFirst(count)
        for index in ends.indices { ends[index] -= base }
        if !isPlainJSON { isPlainJSON = Self.isPlain(utf8[...]) }
    }

    /// Whether none of `bytes` needs escaping in a JSON string.
    private static func isPlain(_ bytes: ArraySlice<UInt8>) -> Bool {
        JSONWriter.isPlain(bytes.span)
    }

    // MARK: - Codable

    /// Reads a JSON array of strings.
    public init(from decoder: any Decoder) throws {
        self.init(try [String](from: decoder))
    }

    /// Writes a JSON array of strings.
    public func encode(to encoder: any Encoder) throws {
        try strings.encode(to: encoder)
    }
}
