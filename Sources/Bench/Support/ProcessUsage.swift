import Foundation
import Pipeline

/// A process's CPU time and peak resident memory, read from Linux's /proc: the kernel's own
/// per-task accounting that getrusage reports (`utime` + `stime`, and `VmHWM` = `ru_maxrss`),
/// readable while the process runs, so a benchmark can measure a window of a child's life.
struct ProcessUsage: Sendable {
    /// CPU seconds spent in the process's own code so far.
    var userSeconds: Double
    /// CPU seconds the kernel spent on the process's behalf so far (system calls, page faults,
    /// and, on loopback, the receiving side of what it sends).
    var systemSeconds: Double
    /// The most resident memory so far, MiB.
    var peakResidentMiB: Double

    /// User plus system CPU seconds so far.
    var cpuSeconds: Double { userSeconds + systemSeconds }

    /// The usage of process `pid`, or nil when /proc does not have it.
    static func of(pid: Int32) -> ProcessUsage? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let stat = ProcessStat(text) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { return nil }
        return ProcessUsage(userSeconds: Double(stat.userTicks) / ticks, systemSeconds: Double(stat.systemTicks) / ticks, peakResidentMiB: kilobytes / 1_024)
    }
}
