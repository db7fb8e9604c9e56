import Crypto
import InstanceAPI
import WireJSON

/// How `iidbatch submit` cuts a list of items into request records: `recordSize` items per
/// record, each with an id that depends only on the work, so submitting the same input again
/// produces the same ids (and the backend operations are idempotent, so it repeats no harm).
package struct SubmitPlan: Sendable {
    /// The op of every request.
    public var op: RequestOp
    /// The target of every request.
    public var target: RequestTarget
    /// Items per record.
    public var recordSize: Int
    /// Ids are `<prefix>-<n>`, n from 1, zero-padded to 6 digits.
    public var idPrefix: String
    /// The batch every request names (it does not change the ids: the same work in another batch
    /// has the same ids).
    public var batch: String?

    /// A plan. `idPrefix` nil derives one from the op, target, record size and items.
    public init(op: RequestOp, target: RequestTarget, recordSize: Int, items: [String], idPrefix: String? = nil, batch: String? = nil) {
        self.op = op
        self.batch = batch
        self.target = target
        self.recordSize = max(1, recordSize)
        self.idPrefix = idPrefix ?? Self.derivedPrefix(op: op, target: target, recordSize: self.recordSize, items: items)
    }

    /// What is wrong with `prefix` as a plan's `idPrefix`, or nil: it must not be empty, its ids
    /// (`<prefix>-` and up to 18 digits) must stay within `RequestID.maxBytes`, else a worker
    /// would shorten them and the batch could never be seen complete, and it must be in Unicode
    /// NFC (`RequestID.isNormalized(_:)`), else a worker would reject every record.
    public static func problem(withIDPrefix prefix: String) -> String? {
        if prefix.isEmpty { return "must not be empty" }
        if !RequestID.isNormalized(prefix) { return "is not in Unicode normalization form C (NFC): workers reject such ids; use its NFC form" }
        let most = RequestID.maxBytes - 1 - 18
        if prefix.utf8.count > most { return "\(prefix.utf8.count) bytes is longer than \(most): ids would pass \(RequestID.maxBytes) bytes" }
        return nil
    }

    /// The number of records `count` items make.
    public func recordCount(items count: Int) -> Int { (count + recordSize - 1) / recordSize }

    /// The id of record `number` (from 1).
    public func id(_ number: Int) -> String { Self.id(prefix: idPrefix, number: number) }

    /// The id of record `number` of a plan with ids from `prefix`: `<prefix>-<n>`, n zero-padded
    /// to 6 digits.
    public static func id(prefix: String, number: Int) -> String {
        let digits = String(number)
        return "\(prefix)-\(String(repeating: "0", count: max(0, 6 - digits.count)))\(digits)"
    }

    /// The number `id` has as an id of a plan with ids from `prefix`: n when `id` is exactly
    /// `id(prefix:number:)` of n (n from 1), else nil.
    public static func number(of id: String, prefix: String) -> Int? {
        guard id.hasPrefix(prefix + "-") else { return nil }
        let digits = id.utf8.dropFirst(prefix.utf8.count + 1)
        guard digits.count <= 18, digits.allSatisfy({ (48...57).contains($0) }), let number = Int(Substring(digits)), number >= 1,
            Self.id(prefix: prefix, number: number) == id
        else { return nil }
        return number
    }

    /// Record `number` (from 1) of `items`.
    public func request(_ number: Int, of items: [String]) -> PipelineRequest {
        let start = (number - 1) * recordSize
        return PipelineRequest(id: id(number), op: op, target: target, items: PackedStrings(items[start..<min(items.count, start + recordSize)]), batch: batch)
    }

    /// `<op initials>-<16 hex digits>`: the first 64 bits of the SHA-256 of everything that
    /// defines the work, each part followed by 0xFF (a byte UTF-8 never holds). Whoever supplies
    /// an item file cannot make it give another batch's prefix, as they could with a hash
    /// that is not collision-resistant (FNV-1a, before): their records would have been turned
    /// away as that batch's duplicates, and their outcomes taken for its requests' by `reconcile`.
    static func derivedPrefix(op: RequestOp, target: RequestTarget, recordSize: Int, items: [String]) -> String {
        var hash = SHA256()
        func mix(_ text: String) {
            hash.update(data: Array(text.utf8) + [0xFF])
        }
        mix(op.rawValue)
        for (key, value) in target.outcomeFields.sorted(by: { $0.key < $1.key }) { mix(key + "=" + value) }
        mix(String(recordSize))
        for item in items { mix(item) }
        let initials = op.rawValue.split(separator: ".").map { String($0.prefix(1)) }.joined()
        return "\(initials)-\(NumberText.hex(hash.finalize().prefix(8)))"
    }
}
