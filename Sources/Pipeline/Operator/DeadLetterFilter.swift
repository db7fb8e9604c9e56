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
        if !codes.isEmpty && codes.isDisjoint(with: letter.codes) { return false }
        if !ops.isEmpty && !ops.contains(request.op) { return false }
        if let since, let time = letter.record.timestamp, time < since { return false }
        if let until, let time = letter.record.timestamp, time >= until { return false }
        return true
    }
}
