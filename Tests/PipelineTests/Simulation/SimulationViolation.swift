/// An invariant the simulation found broken.
struct SimulationViolation: Error, CustomStringConvertible {
    var step: Int
    var at: Duration
    var message: String

    var description: String { "step \(step), \(at) in: \(message)" }
}
