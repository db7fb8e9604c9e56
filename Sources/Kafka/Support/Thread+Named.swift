import Foundation

extension Thread {
    /// Starts a thread that runs `body` under `name` as the OS shows it (`top -H`,
    /// `/proc/<pid>/task/<tid>/comm`; at most 15 bytes there). On Linux a name set before
    /// `start()` never reaches the OS thread, which keeps its creator's name; so the thread
    /// names itself before `body` runs.
    static func start(named name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            Thread.current.name = name
            body()
        }
        thread.start()
    }
}
