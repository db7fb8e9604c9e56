import ArgumentParser
import Foundation

/// Who changes the controls and why: every version written carries both, for the audit trail
/// (`iidbatch control history`).
struct ControlAuthor: ParsableArguments {
    @Option(help: ArgumentHelp("Why (kept with the version; required).", valueName: "text"))
    var reason: String

    @Option(help: ArgumentHelp("Who (default: $USER, else $LOGNAME).", valueName: "name"))
    var by = ControlAuthor.currentUser

    /// Who runs the command: $USER, else $LOGNAME, else `unknown`.
    static var currentUser: String {
        ["USER", "LOGNAME"].lazy.compactMap { ProcessInfo.processInfo.environment[$0] }.first { !$0.isEmpty } ?? "unknown"
    }

    func validate() throws {
        guard !reason.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("--reason must say why, got an empty text") }
        guard !by.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("--by must name someone, got an empty text") }
    }
}
