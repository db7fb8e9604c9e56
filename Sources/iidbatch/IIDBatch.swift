import ArgumentParser
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
            Run.self, Control.self, Submit.self, Outcomes.self, Replay.self, Reconcile.self, Demo.self, Broker.self, EmulatorCommand.self, Bench.self,
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
            status = 0
        } catch {
            // What ArgumentParser's `exit(withError:)` prints: help on stdout, errors on stderr.
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if !message.isEmpty {
                let handle = code.isSuccess ? FileHandle.standardOutput : FileHandle.standardError
                handle.write(Data((message + "\n").utf8))
            }
            status = code.rawValue
        }
        await ProcessExit.exit(status)
    }
}
