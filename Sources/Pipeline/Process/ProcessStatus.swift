import Foundation

/// The figures Prometheus clients export as `process_*`: CPU seconds, resident and virtual
/// memory, open and maximum file descriptors, and the start time, from Linux's /proc. The
/// parsing is pure (`init` and the static parsers); `current()` reads the running process.
public struct ProcessStatus: Sendable, Hashable {
    /// User plus system CPU time so far, seconds.
    public var cpuSeconds: Double
    /// Resident memory, bytes.
    public var residentBytes: Double
    /// Virtual memory, bytes.
    public var virtualBytes: Double
    /// When the process started, seconds since the Unix epoch.
    public var startTimeSeconds: Double
    /// File descriptors open now.
    public var openFDs: Int
    /// The soft limit on open file descriptors (infinity when unlimited); nil when unknown.
    public var maxFDs: Double?

    /// The figures of `stat` (its ticks at `ticksPerSecond`, its pages of `pageSize` bytes), on a
    /// system booted at `bootTime` (seconds since the epoch), with `openFDs` open and a limit of
    /// `maxFDs`.
    public init(stat: ProcessStat, bootTime: Double, openFDs: Int, maxFDs: Double?, ticksPerSecond: Double, pageSize: Int) {
        cpuSeconds = Double(stat.userTicks + stat.systemTicks) / ticksPerSecond
        residentBytes = Double(stat.residentPages) * Double(pageSize)
        virtualBytes = Double(stat.virtualBytes)
        startTimeSeconds = bootTime + Double(stat.startTicks) / ticksPerSecond
        self.openFDs = openFDs
        self.maxFDs = maxFDs
    }

    /// The boot time in `/proc/stat`'s text (its `btime` line, seconds since the epoch); nil
    /// without one.
    public static func bootTime(systemStat text: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix("btime ") {
            return Double(line.dropFirst("btime ".count).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    /// The soft limit of `Max open files` in `/proc/<pid>/limits`' text (infinity for
    /// `unlimited`); nil without such a line.
    public static func maxOpenFiles(limits text: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix("Max open files") {
            guard let soft = line.dropFirst("Max open files".count).split(separator: " ").first else { return nil }
            return soft == "unlimited" ? .infinity : Double(soft)
        }
        return nil
    }

    /// The running process's figures; nil where /proc cannot be read (not Linux).
    public static func current() -> ProcessStatus? {
        func read(_ path: String) -> String? { try? String(contentsOfFile: path, encoding: .utf8) }
        guard let statText = read("/proc/self/stat"), let stat = ProcessStat(statText),
            let bootTime = read("/proc/stat").flatMap({ bootTime(systemStat: $0) }),
            let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
        else { return nil }
        return ProcessStatus(
            stat: stat, bootTime: bootTime, openFDs: descriptors.count, maxFDs: read("/proc/self/limits").flatMap { maxOpenFiles(limits: $0) },
            ticksPerSecond: Double(sysconf(Int32(_SC_CLK_TCK))), pageSize: Int(sysconf(Int32(_SC_PAGESIZE))))
    }
}
