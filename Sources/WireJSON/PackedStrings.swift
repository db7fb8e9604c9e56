/// A list of strings kept as ranges of one UTF-8 buffer: the form a request's items travel in,
/// from the record they were read from to the call body they are written into.
///
/// A list read from a record (`JSONValue.parseMembers`) points into the record's own bytes:
/// reading it copies no item. Slicing shares the buffer; appending elements of one list to
/// another copies the stretch of the buffer they lie in, once, quotes included. What a list
/// copies into its own buffer it lays out as a compact JSON array (`"a","b"`), so that a call
/// body gathered from several records is still written by copying one or two byte ranges
/// (`JSONWriter.strings(_:)`). None of these allocates or reference-counts anything per string.
/// Reading an element makes a `String`; the hot path does not.
///
/// Guarantees: elements read back exactly as appended (valid UTF-8, in order); two lists are
/// equal when they hold the same strings in the same order, wherever their bytes are kept;
/// `isPlainJSON` is true exactly when no byte of any element needs escaping in a JSON string.
public struct PackedStrings: Sendable, Hashable, RandomAccessCollection, ExpressibleByArrayLiteral, CustomStringConvertible, Codable {
    /// The buffer the elements' bytes are in (it may hold other bytes between them).
    private var storage: [UInt8] = []
    /// Where each element's bytes are in `storage`: in list order, none overlapping (a stretch
    /// of elements is a stretch of the buffer).
    private var bounds: [Range<Int>] = []
    /// Whether no element has a byte that needs escaping in a JSON string.
    package private(set) var isPlainJSON = true
    /// The elements' bytes in all.
    package private(set) var byteCount = 0

    /// An empty list.
    public init() {}

    /// An empty list with room for `count` strings of `bytes` bytes in all.
    package init(reservingCapacity count: Int, bytes: Int = 0) {
        bounds.reserveCapacity(count)
        storage.reserveCapacity(bytes)
    }

    /// A list of `strings`, in order.
    public init(_ strings: some Sequence<String>) {
        self.init()
        for string in strings { append(string) }
    }

    /// A list of the elements.
    public init(arrayLiteral elements: String...) { self.init(elements) }

    /// A list whose elements are `bounds` of `storage`, each valid UTF-8; `isPlainJSON` must
    /// say truly whether any of them needs escaping.
    init(storage: [UInt8], bounds: [Range<Int>], isPlainJSON: Bool) {
        self.storage = storage
        self.bounds = bounds
        self.isPlainJSON = isPlainJSON
        self.byteCount = bounds.reduce(0) { $0 + $1.count }
    }

    // MARK: - Collection

    /// 0.
    public var startIndex: Int { 0 }
    /// The number of strings.
    public var endIndex: Int { bounds.count }

    /// Element `index` as a `String` (one allocation for a string past 15 bytes).
    public subscript(index: Int) -> String {
        String(decoding: storage[bounds[index]], as: UTF8.self)
    }

    /// The UTF-8 bytes of element `index`.
    package func bytes(_ index: Int) -> ArraySlice<UInt8> { storage[bounds[index]] }

    /// The number of UTF-8 bytes of element `index`.
    package func byteCount(_ index: Int) -> Int { bounds[index].count }

    /// The elements, as an array of `String`s.
    public var strings: [String] { map { $0 } }

    /// The elements as a JSON array, for logs and test failures.
    public var description: String { strings.description }

    // MARK: - Building

    /// Appends `string`.
    public mutating func append(_ string: String) {
        openStretch()
        storage.append(Self.quote)
        let start = storage.count
        storage.append(contentsOf: string.utf8)
        add(start..<storage.count)
        storage.append(Self.quote)
    }

    /// Appends element `index` of `other`.
    package mutating func append(_ index: Int, of other: PackedStrings) {
        append(index..<index + 1, of: other)
    }

    /// Appends elements `range` of `other`, in order. When they lie in `other`'s buffer with at
    /// most a separator (`","`) between each two, that stretch is copied at once, else each
    /// element alone. An empty list given all of `other` takes its buffer as it is.
    package mutating func append(_ range: Range<Int>, of other: PackedStrings) {
        guard !range.isEmpty else { return }
        guard !isEmpty || range != other.indices else {
            self = other
            return
        }
        compact()
        let added = other.bounds[range]
        let addedBytes = added.reduce(0) { $0 + $1.count }
        let span = added.first!.lowerBound..<added.last!.upperBound
        if span.count <= addedBytes + Self.separatorBytes * (range.count - 1) {
            // With the quotes around it when it has them, so that it joins what is here already
            // into one stretch of a JSON array.
            let quoted =
                span.lowerBound > 0 && span.upperBound < other.storage.count && other.storage[span.lowerBound - 1] == Self.quote
                && other.storage[span.upperBound] == Self.quote
            let copied = quoted ? span.lowerBound - 1..<span.upperBound + 1 : span
            if quoted { openStretch() }
            let shift = storage.count - copied.lowerBound
            storage.append(contentsOf: other.storage[copied])
            bounds.append(contentsOf: added.lazy.map { ($0.lowerBound + shift)..<($0.upperBound + shift) })
        } else {
            copyEach(added, of: other.storage)
        }
        byteCount += addedBytes
        if isPlainJSON { isPlainJSON = other.isPlainJSON || range.allSatisfy { Self.isPlain(other.bytes($0)) } }
    }

    /// Appends every element of `other`, in order. An empty list takes `other`'s buffer as it is.
    public mutating func append(contentsOf other: PackedStrings) {
        append(other.indices, of: other)
    }

    /// The elements in `range`, as a list of their own sharing this one's buffer.
    package func extracting(_ range: Range<Int>) -> PackedStrings {
        var part = PackedStrings(storage: storage, bounds: Array(bounds[range]), isPlainJSON: isPlainJSON)
        part.recheckPlainness()
        return part
    }

    /// Removes the first `count` elements.
    package mutating func removeFirst(_ count: Int) {
        guard count > 0 else { return }
        byteCount -= bounds[..<count].reduce(0) { $0 + $1.count }
        bounds.removeFirst(count)
        recheckPlainness()
        compact()
    }

    /// Records that `range` of `storage` is a new element; `plain` when already known.
    private mutating func add(_ range: Range<Int>, plain: Bool? = nil) {
        bounds.append(range)
        byteCount += range.count
        if isPlainJSON { isPlainJSON = plain ?? Self.isPlain(storage[range]) }
    }

    /// After elements were dropped: a list that was not plain may be now.
    private mutating func recheckPlainness() {
        if !isPlainJSON { isPlainJSON = indices.allSatisfy { Self.isPlain(bytes($0)) } }
    }

    /// Drops the buffer's bytes that no element uses any more, when they are most of it, so a
    /// list that is appended to and taken from for long does not grow without bound.
    private mutating func compact() {
        guard storage.count > 4096, byteCount + Self.separatorBytes * count < storage.count / 2 else { return }
        var compacted = PackedStrings(reservingCapacity: count, bytes: byteCount)
        compacted.copyEach(bounds[...], of: storage)
        compacted.byteCount = byteCount
        compacted.isPlainJSON = isPlainJSON
        self = compacted
    }

    /// Copies each of `elements` of `buffer` to the end of the buffer, as the elements of a
    /// compact JSON array are (`"a","b"`), and records where each went (the caller counts the
    /// bytes and the plainness).
    private mutating func copyEach(_ elements: ArraySlice<Range<Int>>, of buffer: [UInt8]) {
        for element in elements {
            openStretch()
            storage.append(Self.quote)
            let start = storage.count
            storage.append(contentsOf: buffer[element])
            bounds.append(start..<storage.count)
            storage.append(Self.quote)
        }
    }

    /// Before bytes that open with an element's quote: a comma when the buffer ends with the
    /// last element's closing quote, so the buffer reads as one compact JSON array across the
    /// appends and a call body copies it in one piece (`appendJSONElements`).
    private mutating func openStretch() {
        if let last = bounds.last, last.upperBound == storage.count - 1, storage[last.upperBound] == Self.quote {
            storage.append(UInt8(ascii: ","))
        }
    }

    private static let quote = UInt8(ascii: "\"")

    /// The bytes around and between elements of a compact JSON array (`","`), as this list keeps
    /// the elements it copies: a stretch of elements with no more than these between them is
    /// copied as one.
    private static let separatorBytes = 3

    // MARK: - JSON

    /// Appends the elements as JSON strings separated by commas (`"a","b"`, no brackets); only
    /// for a list whose `isPlainJSON` is true. A stretch of elements that already sit in the
    /// buffer exactly so (a compact record's array, or what the list copied) is copied in one
    /// piece. Returns how many stretches it wrote.
    @discardableResult
    func appendJSONElements(to bytes: inout [UInt8]) -> Int {
        var stretches = 0
        var first = 0
        while first < bounds.count {
            var last = first
            while last + 1 < bounds.count, isFollowedByComma(last) { last += 1 }
            if first > 0 { bytes.append(UInt8(ascii: ",")) }
            let from = bounds[first].lowerBound - 1
            let to = bounds[last].upperBound + 1
            if from >= 0, to <= storage.count, storage[from] == UInt8(ascii: "\""), storage[to - 1] == UInt8(ascii: "\"") {
                bytes.append(contentsOf: storage[from..<to])
            } else {
                for index in first...last {
                    if index > first { bytes.append(UInt8(ascii: ",")) }
                    bytes.append(UInt8(ascii: "\""))
                    bytes.append(contentsOf: storage[bounds[index]])
                    bytes.append(UInt8(ascii: "\""))
                }
            }
            first = last + 1
            stretches += 1
        }
        return stretches
    }

    /// True when element `index` and the next one sit in the buffer as `…","…`.
    private func isFollowedByComma(_ index: Int) -> Bool {
        let end = bounds[index].upperBound
        return bounds[index + 1].lowerBound == end + 3 && storage[end] == UInt8(ascii: "\"") && storage[end + 1] == UInt8(ascii: ",")
            && storage[end + 2] == UInt8(ascii: "\"")
    }

    /// Whether none of `bytes` needs escaping in a JSON string.
    static func isPlain(_ bytes: ArraySlice<UInt8>) -> Bool {
        JSONWriter.isPlain(bytes.span)
    }

    // MARK: - Equality

    /// Same strings in the same order.
    public static func == (lhs: PackedStrings, rhs: PackedStrings) -> Bool {
        lhs.count == rhs.count && lhs.indices.allSatisfy { lhs.bytes($0) == rhs.bytes($0) }
    }

    /// Hashes the strings in order.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for index in indices {
            hasher.combine(byteCount(index))
            for byte in bytes(index) { hasher.combine(byte) }
        }
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
