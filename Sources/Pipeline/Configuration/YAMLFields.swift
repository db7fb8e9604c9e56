import Foundation

/// Typed, strict access to one YAML mapping of a pipeline file; every failure names the key.
struct YAMLFields {
    let file: String
    var fields: [String: Any]
    let path: String

    func error(_ key: String, _ reason: String) -> PipelineFileError {
        PipelineFileError(file: file, key: path + key, reason: reason)
    }

    private mutating func take(_ key: String) -> Any? {
        guard let value = fields.removeValue(forKey: key) else { return nil }
        return value is NSNull ? nil : value
    }

    /// Fails on any key nobody asked for: a typo must not silently become a default.
    func finish() throws(PipelineFileError) {
        if let key = fields.keys.sorted().first { throw error(key, "is not a setting") }
    }

    mutating func string(_ key: String) throws(PipelineFileError) -> String? {
        guard let value = take(key) else { return nil }
        guard let text = value as? String, !text.isEmpty else { throw error(key, "must be a non-empty string, got \(value)") }
        return text
    }

    /// A sender id: a project number, 1 to 20 decimal digits, written as a number or a string.
    mutating func senderID(_ key: String) throws(PipelineFileError) -> String? {
        guard let value = take(key) else { return nil }
        let text = (value as? Int).map(String.init) ?? (value as? String) ?? ""
        guard (1...20).contains(text.utf8.count), text.utf8.allSatisfy({ (48...57).contains($0) }) else {
            throw error(key, "must be the project number (1 to 20 digits, Firebase console: Project settings, Cloud Messaging), got \(value)")
        }
        return text
    }

    /// A Firebase project id (`ProjectID`).
    mutating func project(_ key: String) throws(PipelineFileError) -> String? {
        guard let id = try string(key) else { return nil }
        if let problem = ProjectID.problem(with: id) { throw error(key, problem) }
        return id
    }

    mutating func ops(_ key: String) throws(PipelineFileError) -> Set<RequestOp>? {
        guard let value = take(key) else { return nil }
        guard let names = value as? [Any], !names.isEmpty else { throw error(key, "must be a non-empty list of ops, got \(value)") }
        var ops: Set<RequestOp> = []
        for name in names {
            guard let text = name as? String, let op = RequestOp(rawValue: text) else {
                throw error(key, "'\(name)' is not an op; expected \(RequestOp.names)")
            }
            ops.insert(op)
        }
        return ops
    }

    mutating func topic(_ key: String, required: Bool = false) throws(PipelineFileError) -> String? {
        guard let name = try string(key) else {
            if required { throw error(key, "is required") }
            return nil
        }
        let allowed = name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "_" || $0 == "-") }
        guard allowed, name.utf8.count <= RecordPosition.maxTopicBytes else {
            throw error(key, "'\(name)' is not a Kafka topic name ([a-zA-Z0-9._-], at most \(RecordPosition.maxTopicBytes))")
        }
        return name
    }

    mutating func integer(_ key: String, in range: ClosedRange<Int>) throws(PipelineFileError) -> Int? {
        guard let value = take(key) else { return nil }
        guard let number = value as? Int else { throw error(key, "must be an integer, got \(value)") }
        guard range.contains(number) else { throw error(key, "\(number) is out of range \(range.lowerBound)...\(range.upperBound)") }
        return number
    }

    mutating func number(_ key: String, in range: ClosedRange<Double>) throws(PipelineFileError) -> Double? {
        guard let value = take(key) else { return nil }
        let number = (value as? Double) ?? (value as? Int).map(Double.init)
        guard let number, number.isFinite, range.contains(number) else {
            throw error(key, "must be a positive number from \(range.lowerBound) to \(range.upperBound), got \(value)")
        }
        return number
    }

    mutating func duration(_ key: String, allowZero: Bool = false) throws(PipelineFileError) -> Duration? {
        guard let value = take(key) else { return nil }
        guard let text = value as? String, let duration = DurationText.parse(text) else {
            throw error(key, "must be a duration such as \(DurationText.examples), at most \(DurationText.longest), got \(value)")
        }
        guard allowZero || duration > .zero else { throw error(key, "must be longer than zero") }
        return duration
    }

    mutating func section(_ key: String) throws(PipelineFileError) -> YAMLFields? {
        guard let value = take(key) else { return nil }
        guard let mapping = value as? [String: Any] else { throw error(key, "must be a mapping, got \(value)") }
        return YAMLFields(file: file, fields: mapping, path: path + key + ".")
    }

}
