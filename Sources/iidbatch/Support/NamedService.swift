import CommandSupport
import ServiceLifecycle

/// A service of `iidbatch run` whose failure names it: an error it stops with reaches the
/// service group as a `ServiceFailure` carrying `name`.
struct NamedService<Base: Service>: Service, CustomStringConvertible {
    /// How messages name the service.
    let name: String
    /// The service.
    let base: Base

    var description: String { name }

    func run() async throws {
        do { try await base.run() } catch let failure as ServiceFailure { throw failure } catch { throw ServiceFailure(service: name, error: error) }
    }
}
