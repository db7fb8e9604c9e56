import Pipeline
import Testing

/// The `process_*` figures parsed from /proc's text as Linux writes it.
@Suite("Process status from /proc")
struct ProcessStatusTests {
    /// A `/proc/<pid>/stat` line whose command name holds a space and a parenthesis.
    let stat =
        "4242 (iid batch) x) S 1 4242 4242 0 -1 4194560 1234 0 5 0 250 50 0 0 20 0 12 0 "
        + "180000 1073741824 2048 18446744073709551615 1 1 0 0 0 0 0 4096 16898 0 0 0 17 1 0 0 0 0 0\n"

    @Test("the stat line's fields are counted from the command name's last parenthesis")
    func statFields() throws {
        let fields = try #require(ProcessStat(stat))
        #expect(fields.userTicks == 250 && fields.systemTicks == 50)
        #expect(fields.startTicks == 180_000)
        #expect(fields.virtualBytes == 1_073_741_824 && fields.residentPages == 2048)
        #expect(ProcessStat("4242 (short) S 1 2 3") == nil, "too few fields")
        #expect(ProcessStat("no parenthesis at all") == nil)
    }

    @Test("CPU seconds, memory in bytes and the start time since the epoch, as Prometheus clients export them")
    func figures() throws {
        let status = ProcessStatus(
            stat: try #require(ProcessStat(stat)), bootTime: 1_700_000_000, openFDs: 17, maxFDs: 1024, ticksPerSecond: 100, pageSize: 4096)
        #expect(status.cpuSeconds == 3)
        #expect(status.residentBytes == 8_388_608)
        #expect(status.virtualBytes == 1_073_741_824)
        #expect(status.startTimeSeconds == 1_700_001_800)
        #expect(status.openFDs == 17 && status.maxFDs == 1024)
    }

    @Test("the boot time from /proc/stat and the soft limit of open files from /proc/<pid>/limits")
    func bootTimeAndLimits() {
        let systemStat = "cpu  1 2 3 4\ncpu0 1 2 3 4\nintr 5\nctxt 6\nbtime 1700000000\nprocesses 7\n"
        #expect(ProcessStatus.bootTime(systemStat: systemStat) == 1_700_000_000)
        #expect(ProcessStatus.bootTime(systemStat: "cpu 1 2 3\n") == nil)
        let limits = """
            Limit                     Soft Limit           Hard Limit           Units
            Max cpu time              unlimited            unlimited            seconds
            Max open files            20000                524288               files
            Max locked memory         8388608              8388608              bytes

            """
        #expect(ProcessStatus.maxOpenFiles(limits: limits) == 20_000)
        #expect(ProcessStatus.maxOpenFiles(limits: "Max open files            unlimited            unlimited            files\n") == .infinity)
        #expect(ProcessStatus.maxOpenFiles(limits: "Max cpu time unlimited unlimited seconds\n") == nil)
    }

    @Test("this process's own figures are read from /proc")
    func current() throws {
        let status = try #require(ProcessStatus.current(), "Linux has /proc/self")
        #expect(status.residentBytes > 0 && status.virtualBytes >= status.residentBytes)
        #expect(status.openFDs >= 3)
        #expect(status.startTimeSeconds > 1_600_000_000)
        #expect(try #require(status.maxFDs) >= Double(status.openFDs))
    }
}
