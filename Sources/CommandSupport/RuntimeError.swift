import Kafka

/// A failure while running, as opposed to a usage mistake: `IIDBatch.main` prints its message
/// without usage help, and the process exits with its `status` (sysexits, `ExitStatus`).
package struct RuntimeError: Error, CustomStringConvertible {
    /// The status the process exits with.
    package var status: ExitStatus
    /// What went wrong, naming the offending value.
    package var description: String

    /// An error saying `description`, ending the process with `status`.
    package init(_ status: ExitStatus, _ description: String) {
        self.status = status
        self.description = description
    }

    /// An error saying `description` about the Kafka failure `error`, with the status its kind
    /// calls for (`ExitStatus.init(_:)`).
    package init(kafka error: KafkaError, _ description: String) {
        self.init(ExitStatus(error), description)
    }
}
