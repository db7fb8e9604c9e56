import Foundation

/// Which dead letters `iidbatch replay` takes: every condition given must hold.
package struct DeadLetterFilter: Sendable {
    /// Take letters with at least one of these codes (any when empty).
    public var codes: Set<String>
    /// Take letters of these ops (any when empty).
    public var ops: Set<RequestOp>
    /// Take letters written at or after this time.
    public var since: Date?
    /// Take letters written before this time.
    public var until: Date?

    /// A filter; the default takes every replayable letter.
    public init(codes: Set<String> = [], ops: Set<RequestOp> = [], since: Date? = nil, until: Date? = nil) {
        self.codes = codes
        self.ops = ops
        self.since = since
        self.until = until
    }

    /// True when `letter` is replayable (it holds a request, and names the topic it came from)
    /// and meets every condition.
    public func matches(_ letter: DeadLetter) -> Bool {
        guard letter.kind.holdsRequest, let request = letter.request, letter.originalTopic != nil else { return false }
        if !ops.isEmpty && !ops.contains(request.op) { return false }
        return meetsRecordConditions(letter)
    }

    /// Why `letter`, a letter of work to replay (not `undecodable`) that meets the conditions its
    /// headers and time can show (codes, since, until; not the op, which is in the request), cannot
    /// be replayed: a stub without its value, a value no request can be read from, or no original
    /// topic. Nil for a replayable letter, or one the conditions leave out. Such a letter's items
    /// are not replayed, so `iidbatch replay` names it.
    public func unreplayable(_ letter: DeadLetter) -> String? {
        guard letter.kind.holdsRequest, letter.request == nil || letter.originalTopic == nil, meetsRecordConditions(letter) else { return nil }
        if let omitted = letter.omittedBytes {
            let original = letter.originalPosition.map { ": the original record is at \($0)" } ?? ""
            return "a stub, its \(omitted) bytes left out as too large\(original)"
        }
        if letter.request == nil { return "its value is no request that can be read" }
        return "it names no original topic"
    }

    private func meetsRecordConditions(_ letter: DeadLetter) -> Bool {
        if !codes.isEmpty && codes.isDisjoint(with: letter.codes) { return false }
        if let since, let time = letter.record.timestamp, time < since { return false }
        if let until, let time = letter.record.timestamp, time >= until { return false }
        return true
    }
}
