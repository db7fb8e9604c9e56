import InstanceAPI
import Pipeline

/// How the command line writes the adaptive rates of a worker's statistics.
enum RateLine {
    /// `iid.batchAdd 38.2/s, installations.delete 120.0/s`, or `unpaced` when no API has a pace
    /// (none was throttled and there is no rate-limit, or no call was made yet).
    static func describe(_ statistics: WorkerStatistics) -> String {
        guard !statistics.rates.isEmpty else { return "unpaced" }
        return statistics.rates.sorted { $0.key < $1.key }.map { "\($0.key) \(NumberText.fixed($0.value, places: 1))/s" }.joined(separator: ", ")
    }
}
