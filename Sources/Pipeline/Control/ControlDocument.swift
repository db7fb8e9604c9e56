import Foundation
import WireJSON

/// One version of the overrides of one scope (a pipeline's name, or `*` for all): the value of a
/// record of the compacted control topic, keyed by the scope.
///
/// Wire format (JSON): `{"version": 3, "updatedAt": "2026-11-23T10:00:00.000Z", "updatedBy":
/// "alice", "reason": "Google answers 503s", "overrides": {"paused": true, "rate-limit": 5}}`.
/// A tombstone (no value) removes the scope's overrides.
public struct ControlDocument: Sendable, Hashable {
    /// The highest version a record may carry (exact in a JSON number). Versions say which
    /// record came later to people reading the topic; workers go by the topic's order.
    public static let maxVersion = 999_999_999_999_999
    /// The most bytes of an author or a reason that a log line or an outcome shows of a control
    /// record (the record itself keeps them whole).
    public static let maxShownBytes = 256

    /// The scope that overrides every pipeline.
    public static let allPipelines = "*"

    /// Increases by one with every change of the scope.
    public var version: Int
    /// When it was written.
    public var updatedAt: Date
    /// Who wrote it.
    public var updatedBy: String
    /// Why.
    public var reason: String
    /// The settings it overrides.
    public var overrides: [ControlKey: ControlValue]

    /// A document.
    public init(version: Int, updatedAt: Date, updatedBy: String, reason: String, overrides: [ControlKey: ControlValue]) {
        self.version = version
        self.updatedAt = updatedAt
        self.updatedBy = updatedBy
        self.reason = reason
        self.overrides = overrides
    }

    /// Reads a record's value strictly: every field present and typed, every override a known key
    /// with a valid value.
    ///
    /// - Throws: `ControlError` naming the field, or the key and value, that is wrong.
    public static func parse(_ bytes: [UInt8]) throws(ControlError) -> ControlDocument {
        let document: JSONValue
        do { document = try JSONValue.parse(Data(bytes)) } catch { throw .malformed("malformed JSON: \(error)") }
        guard case .object = document else { throw .malformed("must be a JSON object") }
        guard case .number(let number)? = document["version"], number >= 1, number == number.rounded(), number <= Double(maxVersion) else {
            throw .malformed("version must be a positive integer of at most \(maxVersion)")
        }
        guard let stamp = document["updatedAt"]?.stringValue, let updatedAt = WireDate.parse(stamp) else {
            throw .malformed("updatedAt must be an ISO 8601 time")
        }
        guard let updatedBy = document["updatedBy"]?.stringValue, !updatedBy.isEmpty else { throw .malformed("updatedBy must be a non-empty string") }
        guard let reason = document["reason"]?.stringValue, !reason.isEmpty else { throw .malformed("reason must be a non-empty string") }
        guard case .object(let fields)? = document["overrides"] else { throw .malformed("overrides must be an object") }
        var overrides: [ControlKey: ControlValue] = [:]
        for (name, raw) in fields {
            guard let key = ControlKey(rawValue: name) else { throw .unknownKey(name) }
            overrides[key] = try key.value(from: .json(raw))
        }
        return ControlDocument(version: Int(number), updatedAt: updatedAt, updatedBy: updatedBy, reason: reason, overrides: overrides)
    }

    /// The record's value, as `parse` reads it back.
    public func jsonBytes() -> [UInt8] {
        let object: [String: Any] = [
            "version": version, "updatedAt": WireDate.text(updatedAt),
            "updatedBy": updatedBy, "reason": reason,
            "overrides": Dictionary(uniqueKeysWithValues: overrides.map { ($0.key.rawValue, $0.value.json) }),
        ]
        return Array((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data())
    }
}
