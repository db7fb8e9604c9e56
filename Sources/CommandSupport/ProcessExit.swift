import Foundation
import Kafka

/// How every `iidbatch` command ends the process, on success and on error alike: once every
/// Kafka client it made was destroyed (librdkafka's threads joined), and then without `atexit`
/// handlers, which could race with a librdkafka thread still running (`KafkaClients`).
///
/// With `IIDBATCH_EXIT_CHECK=1` in the environment, the exit fails the process (status 70, a line
/// on stderr) when a librdkafka thread still runs at the moment of exit: the switch the
/// end-to-end tests use to prove that every Kafka client was destroyed first.
package enum ProcessExit {
    /// The environment switch of the exit check.
    package static let checkVariable = "IIDBATCH_EXIT_CHECK"
    /// The status of a process whose exit check failed (EX_SOFTWARE).
    package static let checkFailedStatus = ExitStatus.software.rawValue
    /// How long the exit waits for the clients' destroys. By then every command has closed its
    /// clients, and a destroy takes milliseconds; only a client still referenced, or a destroy
    /// waiting for a broker that went away, takes longer. Kept short: `run`'s stop may already
    /// have spent most of a 60 s grace period on an unreachable cluster.
    package static let destroyWait = Duration.seconds(5)

    /// Ends the process with `status` once every Kafka client was destroyed, or after
    /// `destroyWait`.
    package static func exit(_ status: Int32) async -> Never {
        var status = status
        let clients = await KafkaClients.awaitDestroyed(within: destroyWait)
        if !clients.live.isEmpty {
            Output.error("iidbatch: exiting with Kafka clients not destroyed after \(destroyWait): \(clients.live.joined(separator: ", "))")
        }
        if ProcessInfo.processInfo.environment[checkVariable] == "1", clients.threads != 0 {
            Output.error(
                "iidbatch: exit check (\(checkVariable)=1) failed: \(clients.threads) librdkafka threads still running at exit (clients not destroyed: \(clients.live + clients.kept))"
            )
            if status == 0 { status = checkFailedStatus }
        }
        KafkaClients.exitProcess(status)
    }

    /// Ends the process with `status` at once, without waiting for Kafka clients still in use:
    /// for a command stopped by a signal in the middle of work it cannot stop.
    package static func now(_ status: Int32) -> Never {
        KafkaClients.exitProcess(status)
    }
}
