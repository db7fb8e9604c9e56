/// Calls counted by the instant they started (when the backend took them), in slots of `slot`
/// over the last `span`: how many a backend accepted in a recent window, which tells the rate its
/// quota lets through (`AdaptiveRate` cuts to a share of it), or how many were sent while unpaced.
///
/// A pure value: every event carries its instant. A window that reaches back further than `span`
/// counts only the last `span`; the slot an instant falls in is counted whole, so a count is
/// exact to one slot at either end.
public struct AcceptedCalls: Sendable, Hashable {
    /// The width of one slot.
    public static let slot: Duration = .milliseconds(100)
    /// How far back calls are counted: the longest window `AdaptiveRate` measures over.
    public static let span: Duration = .seconds(30)
    private static let slots = Int(span / slot)

    /// The start of slot 0: the first call's instant.
    private var origin: ContinuousClock.Instant?
    /// Calls per slot, a ring indexed by slot number modulo `slots`.
    private var counts: [Int] = []
    /// The newest slot counted (older slots within `span` are in the ring).
    private var newest = 0

    /// Nothing counted yet.
    public init() {}

    /// A call started at `instant` was answered without throttling.
    public mutating func record(at instant: ContinuousClock.Instant) {
        guard let origin else {
            self.origin = instant
            counts = Array(repeating: 0, count: Self.slots)
            counts[0] = 1
            return
        }
        let slot = Self.slot(of: instant, origin: origin)
        if slot > newest {
            // Slots passed since the newest one held calls of `span` ago: emptied as they are reused.
            for passed in (newest + 1)...min(slot, newest + Self.slots) { counts[passed % Self.slots] = 0 }
            newest = slot
        }
        // An instant older than the ring (an answer after `span`) is not counted: its slot was reused.
        guard slot > newest - Self.slots else { return }
        counts[slot % Self.slots] += 1
    }

    /// Calls started from `start` to `now` (at most `span` back) and answered without throttling.
    public func count(from start: ContinuousClock.Instant, to now: ContinuousClock.Instant) -> Int {
        guard let origin else { return 0 }
        let last = min(Self.slot(of: now, origin: origin), newest)
        let first = max(Self.slot(of: start, origin: origin), last - Self.slots + 1, newest - Self.slots + 1)
        guard first <= last else { return 0 }
        return (first...last).reduce(0) { $0 + counts[$1 % Self.slots] }
    }

    private static func slot(of instant: ContinuousClock.Instant, origin: ContinuousClock.Instant) -> Int {
        instant <= origin ? 0 : Int((instant - origin) / slot)
    }
}
