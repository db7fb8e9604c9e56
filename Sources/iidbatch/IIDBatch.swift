import ArgumentParser
import Bench
import CommandSupport
import Foundation

/// The `iidbatch` command line.
@main
struct IIDBatch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "iidbatch",
        abstract: "Run the Firebase app-instance server APIs in bulk, driven by Kafka.",
        discussion: """
            Workers consume request records (installation deletions, FCM topic changes, APNs \
            imports, device-group changes) from Kafka, call the backend within its limits, and \
            publish one outcome per request. Start with `iidbatch broker` for a local Kafka.
            """,
        version: BuildInfo.versionLine,
        subcommands: [
            Run.self, Control.self, Submit.self, Batches.self, Outcomes.self, Replay.self, Reconcile.self, Demo.self, Broker.self, EmulatorCommand.self,
            Bench.self,
        ]
    )

    /// Runs the command the arguments name, then ends the process through `ProcessExit`, on
    /// success and on error alike (ArgumentParser's own `main` would call `exit()` at once).
    static func main() async {
        let status: Int32
        do {
            var command = try await asyncParseAsRoot()
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
            status = ExitStatus.ok.rawValue
        } catch {
            status = report(error)
        }
        await ProcessExit.exit(status)
    }

    /// Writes what ends the process with `error` and returns the exit status (sysexits,
    /// `ExitStatus`). A usage mistake (ArgumentParser's own errors, `ValidationError`) exits 64
    /// with usage help; a `RuntimeError` exits with its status and no usage help; an error no
    /// command classified exits by its kind (`ExitStatus(unclassified:)`, 70 when unknown);
    /// `ExitCode` and help are ArgumentParser's. Help goes to stdout; errors to stderr, as one
    /// Cloud Logging JSON line when the command chose (or its arguments ask for) `--log-format
    /// json`.
    private static func report(_ error: any Error) -> Int32 {
        let code = exitCode(for: error)
        // ArgumentParser answers EXIT_FAILURE for any error it does not know.
        let status = error is ExitCode || code != .failure ? code.rawValue : ExitStatus(unclassified: error).rawValue
        let message = fullMessage(for: error)
        guard !message.isEmpty else { return status }
        if code.isSuccess {
            FileHandle.standardOutput.write(Data((message + "\n").utf8))
        } else if LogFormat.current == .json || LogFormat.requested(in: CommandLine.arguments.dropFirst()) == .json {
            JSONLogHandler.write(
                JSONLogHandler.entry(
                    severity: JSONLogHandler.severity(.error), message: message, label: "iidbatch", metadata: ["exit-status": "\(status)"], time: Date()))
        } else {
            FileHandle.standardError.write(Data((message + "\n").utf8))
        }
        return status
    }
}
