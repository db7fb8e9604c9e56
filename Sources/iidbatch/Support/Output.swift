import Foundation

/// Writes lines to stdout and flushes at once, so a pipe or a test reading them sees each line
/// when it is written.
enum Output {
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
