import Foundation

/// Durations in logarithmic buckets 5 % wide, so percentiles cost constant memory whatever the
/// number of samples.
public struct LatencyHistogram: Sendable, Hashable {
    private static let base = 1.05
    private var buckets: [Int: Int] = [:]
    /// Samples recorded.
    public private(set) var count = 0
    /// The largest sample.
    public private(set) var maximum: Duration = .zero

    /// An empty histogram.
    public init() {}

    /// Adds a sample.
    public mutating func record(_ duration: Duration) {
        let milliseconds = max(Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15, 0.01)
        buckets[Int((log(milliseconds) / log(Self.base)).rounded(.up)), default: 0] += 1
        count += 1
        maximum = max(maximum, duration)
    }

    /// The duration below which `fraction` of the samples fall (within 5 %), or nil when empty.
    public func percentile(_ fraction: Double) -> Duration? {
        guard count > 0 else { return nil }
        let rank = max(1, Int((fraction * Double(count)).rounded(.up)))
        var seen = 0
        for bucket in buckets.keys.sorted() {
            seen += buckets[bucket]!
            if seen >= rank { return .microseconds(Int64(pow(Self.base, Double(bucket)) * 1e3)) }
        }
        return maximum
    }

    /// Both histograms' samples.
    public mutating func merge(_ other: LatencyHistogram) {
        for (bucket, samples) in other.buckets { buckets[bucket, default: 0] += samples }
        count += other.count
        maximum = max(maximum, other.maximum)
    }
}
