import ArgumentParser
import Foundation
import Kafka
import Logging
import NIOCore
import NIOPosix
import Pipeline

/// What `run`, `demo` and the benchmarks share to start workers.
package enum WorkerSetup {
    /// Makes SwiftNIO's event-loop threads run every Swift task of the process, in place of the
    /// default global executor's own thread pool, and says whether that took.
    ///
    /// A worker's call tasks hand each request to the HTTP client's event loop and take its
    /// answer back: with two pools every call crossed threads twice, each crossing a futex wake.
    /// On one pool the task resumes on the loop that read the answer. Measured with
    /// `bench worker` (release, alternating runs): about 10% less CPU per item for 1,000-token
    /// and 100-token topic requests. librdkafka calls that wait on the network (commits, close,
    /// offset lookups) run on Dispatch (`offload`); those that librdkafka's own threads answer at
    /// once (pausing, resuming, assigning in a rebalance) hold the loop for that moment. Answers
    /// then reach the worker in larger bursts, which the circuit breaker allows for
    /// (`CircuitBreaker`). Call once, first thing, in a process that runs a worker.
    ///
    /// The pool is one event loop, `workerLoops`: every call is a chain of hand-offs (the worker
    /// starts a task, the task writes to its connection, the answer resumes the task, the task
    /// reports to the worker), and on one loop each is a queue push where across two it was a
    /// thread woken. Measured on 2 cores (release, alternating runs, shipped pipeline files):
    /// `bench field` 174–176 → 151–157 µs of worker CPU per call, `bench worker --shapes
    /// topics-1000` 0.50–0.61 → 0.45 CPU-s per million items at the same items/s. One loop
    /// carries a worker at its quota with room to spare (3,000 FCM calls/s take under half of
    /// it); a process that needs more scales out as Kafka consumers do, by more processes over
    /// the partitions. It is also what the shipped Kubernetes pod gets (a limit of one CPU,
    /// which NIO's default follows). librdkafka's threads are its own. An operator who wants
    /// more sets NIO's own `NIO_SINGLETON_GROUP_LOOP_COUNT` (`loopCountVariable`), which is then
    /// left to NIO.
    ///
    /// A process that hosts more than workers (a benchmark serving its own emulator) passes its
    /// `loops`.
    @discardableResult
    package static func runTasksOnEventLoops(loops: Int = workerLoops) -> Bool {
        // Left to NIO only when it can use the value (a positive number); an empty or other value
        // would make NIO fall back to a loop per core.
        let asked = ProcessInfo.processInfo.environment[loopCountVariable].flatMap { Int($0) }.map { $0 > 0 } ?? false
        if !asked { NIOSingletons.groupLoopCountSuggestion = max(1, loops) }
        return NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    }

    /// NIO's environment variable for the number of loops of its singleton group.
    package static let loopCountVariable = "NIO_SINGLETON_GROUP_LOOP_COUNT"

    /// The event loops of a process that runs workers.
    package static let workerLoops = 1

    /// A worker's timers on one of the process's event loops (the next of the singleton group's):
    /// the loop's poll times them, with no Dispatch timer and no thread woken but the loop's
    /// (`WakeScheduler`). Never early: a timer due in part of a nanosecond waits the whole one, as
    /// the worker's machines take a wake before their instant for nothing to do.
    package static func eventLoopWakes() -> WakeScheduler {
        let loop = NIOSingletons.posixEventLoopGroup.next()
        return WakeScheduler { instant, body in
            let (seconds, attoseconds) = (instant - .now).components
            let nanoseconds = seconds * 1_000_000_000 + (attoseconds + 999_999_999) / 1_000_000_000
            let scheduled = loop.scheduleTask(in: .nanoseconds(max(0, nanoseconds))) { body() }
            return WakeScheduler.Armed { scheduled.cancel() }
        }
    }

    /// Sends log lines at `levelName` and above to stderr, as text or (`format` json) one JSON
    /// object per line in Cloud Logging's form (`JSONLogHandler`), and records the format for the
    /// process's last error line (`LogFormat.current`); in json with `linesAsLog`, the command's
    /// own lines become log lines too.
    package static func bootstrapLogging(_ levelName: String, format: String = LogFormat.text.rawValue, linesAsLog: Bool = false) throws {
        guard let chosen = LogFormat(rawValue: format) else {
            throw ValidationError("\(LogFormat.option): '\(format)' is not \(LogFormat.allCases.map(\.rawValue).joined(separator: " or "))")
        }
        // Recorded first: an error about the level is written in the format asked for.
        LogFormat.current = chosen
        guard let level = Logger.Level(rawValue: levelName) else {
            throw ValidationError("--log-level: '\(levelName)' is not one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        switch chosen {
        case .text:
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
        case .json:
            LoggingSystem.bootstrap { label in JSONLogHandler(label: label, logLevel: level) }
            if linesAsLog { Output.asLog(Logger(label: "iidbatch")) }
        }
    }

    /// Hands librdkafka's log lines, and the Kafka module's own, to swift-log (label
    /// `iidbatch.kafka`), so they share the run's format and obey its `--log-level`.
    package static func kafkaLogHandler() -> @Sendable (KafkaLogLevel, String) -> Void {
        let logger = Logger(label: "iidbatch.kafka")
        return { level, message in
            let mapped: Logger.Level =
                switch level {
                case .emergency, .alert, .critical: .critical
                case .error: .error
                case .warning: .warning
                case .notice: .notice
                case .info: .info
                case .debug: .debug
                }
            logger.log(level: mapped, "\(message)")
        }
    }

    /// `configuration` with its log lines sent through swift-log.
    package static func logging(_ configuration: KafkaConfiguration) -> KafkaConfiguration {
        var configuration = configuration
        configuration.logHandler = kafkaLogHandler()
        return configuration
    }
}
