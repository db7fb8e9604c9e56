/// The fields of Linux's `/proc/<pid>/stat` line that CPU time, memory and start time come from,
/// in the kernel's own units (clock ticks, bytes, pages). Pure parsing of the text (proc(5)).
public struct ProcessStat: Sendable, Hashable {
    /// CPU time spent in user mode, clock ticks (field 14, `utime`).
    public var userTicks: Int
    /// CPU time the kernel spent on the process's behalf, clock ticks (field 15, `stime`).
    public var systemTicks: Int
    /// When the process started, clock ticks after the system booted (field 22, `starttime`).
    public var startTicks: Int
    /// Virtual memory size, bytes (field 23, `vsize`).
    public var virtualBytes: Int
    /// Resident set size, pages (field 24, `rss`).
    public var residentPages: Int

    /// The fields of `text`, one `/proc/<pid>/stat` line; nil when it is not one. The command
    /// name in parentheses may hold spaces and parentheses itself, so the fields are counted from
    /// its last `)`.
    public init?(_ text: String) {
        guard let close = text.lastIndex(of: ")") else { return nil }
        // After "pid (comm)" the fields start at 3 (state): field n is at index n - 3.
        let fields = text[text.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true)
        func field(_ number: Int) -> Int? { fields.count > number - 3 ? Int(fields[number - 3]) : nil }
        guard let user = field(14), let system = field(15), let start = field(22), let virtual = field(23), let resident = field(24) else {
            return nil
        }
        userTicks = user
        systemTicks = system
        startTicks = start
        virtualBytes = virtual
        residentPages = resident
    }
}
