/// A failure while running, as opposed to a usage mistake: ArgumentParser prints its message
/// without the usage help, and the process exits 1.
struct RuntimeError: Error, CustomStringConvertible {
    /// What went wrong, naming the offending value.
    var description: String

    /// An error saying `description`.
    init(_ description: String) { self.description = description }
}
