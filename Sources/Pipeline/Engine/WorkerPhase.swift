/// A worker's life, as `WorkerMachine` keeps it: running, draining for a stop, stopped.
enum WorkerPhase: Sendable {
    case running
    case stopping
    case stopped
}
