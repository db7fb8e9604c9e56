/// librdkafka client properties plus the few Swift-side settings the wrapper needs.
///
/// Properties pass through to librdkafka verbatim (as kcat's `-X key=value`), so SASL, TLS and
/// tuning need no code here. Nothing is validated until a client is created: an unknown name or an
/// invalid value then fails with `KafkaError.invalidConfiguration` naming the property, and its
/// value only when `shown` shows it.
public struct KafkaConfiguration: Sendable {
    /// librdkafka properties, by name (see librdkafka's CONFIGURATION.md), each under the one
    /// name `KafkaPropertyName.canonical` gives it.
    public private(set) var properties: [String: String] = [:]
    /// Receives librdkafka's log lines and client errors. When nil, librdkafka prints to stderr.
    public var logHandler: (@Sendable (KafkaLogLevel, String) -> Void)?

    /// A configuration that talks to `bootstrapServers` with librdkafka's defaults otherwise.
    public init(bootstrapServers: String, properties: [String: String] = [:]) {
        self.init(properties: properties)
        self.properties["bootstrap.servers"] = bootstrapServers
    }

    /// A configuration made of exactly `properties`, each recorded under its one name
    /// (`KafkaPropertyName`); where a property is given under its name and an alias, the name wins.
    public init(properties: [String: String] = [:]) {
        for (key, value) in properties where KafkaPropertyName.canonical(key) != key { self[key] = value }
        for (key, value) in properties where KafkaPropertyName.canonical(key) == key { self[key] = value }
    }

    /// Reads or writes one librdkafka property, by its name or an alias of it.
    public subscript(property: String) -> String? {
        get { properties[KafkaPropertyName.canonical(property)] }
        set { properties[KafkaPropertyName.canonical(property)] = newValue }
    }

    /// Applies a `key=value` assignment as given on a command line (`-X key=value`).
    ///
    /// - Throws: `KafkaError.malformedPropertyAssignment` when there is no `=` or the key is empty.
    public mutating func apply(assignment: String) throws(KafkaError) {
        guard let equals = assignment.firstIndex(of: "="), equals != assignment.startIndex else {
            throw .malformedPropertyAssignment(assignment)
        }
        let key = assignment[..<equals].trimmingWhitespace()
        guard !key.isEmpty else { throw .malformedPropertyAssignment(assignment) }
        self[key] = String(assignment[assignment.index(after: equals)...])
    }

    /// What logs and errors show in place of a value they may not show.
    public static let redacted = "[redacted]"

    /// `value` as logs and errors may show it: itself for a property known to hold no secret
    /// (`KafkaPropertyName.showsValue`), else `redacted`.
    public static func shown(_ property: String, _ value: String) -> String {
        KafkaPropertyName.showsValue(property) ? value : redacted
    }

    /// Returns this configuration with `defaults` filled in wherever the caller set nothing,
    /// under either name of a property.
    public func withDefaults(_ defaults: [String: String]) -> KafkaConfiguration {
        var copy = self
        for (key, value) in defaults where copy[key] == nil {
            copy[key] = value
        }
        return copy
    }

    /// This configuration for a producer or an admin client: without the properties only a
    /// consumer reads (`KafkaPropertyName.consumerOnly`), which librdkafka would warn of.
    public var forProducer: KafkaConfiguration {
        var copy = self
        copy.properties = properties.filter { !KafkaPropertyName.consumerOnly.contains($0.key) }
        return copy
    }

    /// This configuration for a consumer: without the properties only a producer reads
    /// (`KafkaPropertyName.producerOnly`), which librdkafka would warn of.
    public var forConsumer: KafkaConfiguration {
        var copy = self
        copy.properties = properties.filter { !KafkaPropertyName.producerOnly.contains($0.key) }
        return copy
    }
}
