/// librdkafka properties gathered from several places (built-in defaults, a properties file,
/// the environment, command-line assignments, the brokers option), each kept with where it came
/// from. A property set at a higher `KafkaSettingLayer` wins over one set at a lower layer,
/// whatever order they are applied in; within one layer the later wins (a file's later line, a
/// later `-X`).
///
/// Its `description` lists every property with its origin and, only for properties known to hold
/// no secret (`KafkaConfiguration.shown`), its value; every other value shows as `[redacted]`,
/// so it can be logged.
public struct KafkaSettings: Sendable, Equatable, CustomStringConvertible {
    /// The prefix of the environment variables that hold properties: `IIDBATCH_KAFKA_<NAME>`
    /// sets the property `propertyName(forVariable:)` makes of `<NAME>`.
    public static let environmentPrefix = "IIDBATCH_KAFKA_"

    /// Every property set, by its one name (`KafkaPropertyName.canonical`).
    public private(set) var entries: [String: KafkaSetting] = [:]

    /// No properties.
    public init() {}

    /// Sets `property` to `value` unless a higher layer already set it; an alias of librdkafka's
    /// (`metadata.broker.list`) sets the property under its one name (`KafkaPropertyName`), so
    /// the layers decide between names too.
    public mutating func set(_ property: String, to value: String, layer: KafkaSettingLayer, origin: String) {
        let property = KafkaPropertyName.canonical(property)
        if let existing = entries[property], existing.layer > layer { return }
        entries[property] = KafkaSetting(value: value, layer: layer, origin: origin)
    }

    /// Applies the lines of a properties file (`KafkaPropertiesFile`) whose text is `text`, at
    /// the file layer; each setting's origin names `file` and the line.
    ///
    /// - Throws: `KafkaError.malformedPropertiesFile` naming the file and line.
    public mutating func apply(file text: String, named file: String) throws(KafkaError) {
        for line in try KafkaPropertiesFile.parse(text, file: file) {
            set(line.key, to: line.value, layer: .file, origin: "\(file) line \(line.number)")
        }
    }

    /// Applies every `IIDBATCH_KAFKA_*` variable of `environment` at the environment layer;
    /// each setting's origin names its variable.
    ///
    /// - Throws: `KafkaError.malformedPropertyVariable` for a variable that names no property.
    public mutating func apply(environment: [String: String]) throws(KafkaError) {
        for (variable, value) in environment.sorted(by: { $0.key < $1.key }) where variable.hasPrefix(Self.environmentPrefix) {
            guard let property = Self.propertyName(forVariable: variable) else {
                throw .malformedPropertyVariable(
                    name: variable, reason: "names no Kafka property (expected \(Self.environmentPrefix)<NAME>, e.g. \(Self.environmentPrefix)SASL_PASSWORD)")
            }
            set(property, to: value, layer: .environment, origin: "$" + variable)
        }
    }

    /// Applies a `key=value` assignment (as `-X` takes it) at the assignment layer, with
    /// `origin` saying where it was given.
    ///
    /// - Throws: `KafkaError.malformedPropertyAssignment` when there is no `=` or the key is empty.
    public mutating func apply(assignment: String, origin: String) throws(KafkaError) {
        var parsed = KafkaConfiguration()
        try parsed.apply(assignment: assignment)
        for (key, value) in parsed.properties { set(key, to: value, layer: .assignment, origin: origin) }
    }

    /// The property an environment variable sets: the name after `environmentPrefix`,
    /// lowercased, each `__` becoming `_` and each other `_` becoming `.`
    /// (`IIDBATCH_KAFKA_SASL_PASSWORD` → `sasl.password`, `IIDBATCH_KAFKA_SOME__NAME` →
    /// `some_name`). Nil when the variable has not the prefix, or the name is empty or starts or
    /// ends with a dot.
    public static func propertyName(forVariable variable: String) -> String? {
        guard variable.hasPrefix(environmentPrefix) else { return nil }
        var name = ""
        var rest = Substring(variable.dropFirst(environmentPrefix.count))
        while let character = rest.first {
            if rest.hasPrefix("__") {
                name.append("_")
                rest = rest.dropFirst(2)
            } else {
                name += character == "_" ? "." : character.lowercased()
                rest = rest.dropFirst()
            }
        }
        guard !name.isEmpty, !name.hasPrefix("."), !name.hasSuffix(".") else { return nil }
        return name
    }

    /// The configuration these settings make.
    public var configuration: KafkaConfiguration {
        KafkaConfiguration(properties: entries.mapValues(\.value))
    }

    /// `name=value (from origin)` for every property, sorted by name, each value as
    /// `KafkaConfiguration.shown` shows it.
    public var description: String {
        entries.sorted { $0.key < $1.key }
            .map { "\($0.key)=\(KafkaConfiguration.shown($0.key, $0.value.value)) (from \($0.value.origin))" }
            .joined(separator: ", ")
    }
}
