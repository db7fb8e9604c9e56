import Foundation
import Synchronization

/// A process a benchmark starts (the broker, the emulator, a worker): its output collected, waited
/// on line by line, and stopped with SIGINT (then SIGKILL) when the benchmark ends.
final class BenchChild: Sendable {
    private let process: Process
    private let output = Mutex("")
    /// What it is, for messages.
    let name: String

    /// Starts this very executable with `arguments`.
    init(_ name: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        if !FileManager.default.isExecutableFile(atPath: process.executableURL!.path) {
            process.executableURL = Bundle.main.executableURL
        }
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        self.process = process
        self.name = name
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            if !data.isEmpty { self?.output.withLock { $0 += String(decoding: data, as: UTF8.self) } }
        }
        try process.run()
    }

    /// Its process id.
    var pid: Int32 { process.processIdentifier }

    /// Everything it wrote so far.
    var text: String { output.withLock { $0 } }

    /// The rest of the first line that starts with `prefix`, once written; throws if the process
    /// exits first or after `seconds`.
    func line(startingWith prefix: String, seconds: Double = 60) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while true {
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) { return String(line.dropFirst(prefix.count)) }
            guard process.isRunning else { throw RuntimeError("\(name) exited (\(process.terminationStatus)) before '\(prefix)':\n\(text)") }
            guard ContinuousClock.now < deadline else { throw RuntimeError("\(name) wrote no '\(prefix)' within \(Int(seconds)) s:\n\(text)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Its CPU time and peak memory so far.
    var usage: ProcessUsage? { ProcessUsage.of(pid: pid) }

    /// Sends SIGINT and waits up to 30 s for the exit, then kills it.
    func stop() async {
        guard process.isRunning else { return }
        process.interrupt()
        let deadline = ContinuousClock.now + .seconds(30)
        while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning { kill(pid, SIGKILL) }
    }
}
