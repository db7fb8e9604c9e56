import Metrics
import Pipeline
import Synchronization

/// The process's own series, as every Prometheus client exports them: `iidbatch_build_info`
/// (always 1, labelled with the version and commit) and the `process_*` figures, read from /proc
/// at each scrape (`update()`); where /proc cannot be read the figures keep their last values.
final class ProcessMetrics: Sendable {
    private let cpuSeconds = FloatingPointCounter(label: MetricName.processCPUSeconds.rawValue)
    private let cpuCounted = Mutex<Double>(0)
    private let residentBytes = Gauge(label: MetricName.processResidentMemory.rawValue)
    private let virtualBytes = Gauge(label: MetricName.processVirtualMemory.rawValue)
    private let openFDs = Gauge(label: MetricName.processOpenFDs.rawValue)
    private let maxFDs = Gauge(label: MetricName.processMaxFDs.rawValue)
    private let startTime = Gauge(label: MetricName.processStartTime.rawValue)

    /// The series, with the build's and the process's figures of now.
    init() {
        Gauge(label: MetricName.buildInfo.rawValue, dimensions: [("version", BuildInfo.version), ("commit", BuildInfo.commit)]).record(1)
        update()
    }

    /// Reads /proc and sets the series. The CPU counter advances by the time spent since the
    /// last reading (the kernel's figure only grows).
    func update() {
        guard let status = ProcessStatus.current() else { return }
        let added = cpuCounted.withLock { counted in
            let added = max(status.cpuSeconds - counted, 0)
            counted += added
            return added
        }
        if added > 0 { cpuSeconds.increment(by: added) }
        residentBytes.record(status.residentBytes)
        virtualBytes.record(status.virtualBytes)
        openFDs.record(status.openFDs)
        if let limit = status.maxFDs { maxFDs.record(limit) }
        startTime.record(status.startTimeSeconds)
    }
}
