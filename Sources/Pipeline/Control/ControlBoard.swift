import Kafka
import WireJSON

/// The control topic as a worker or `iidbatch control` has read it so far: the last good
/// document of each scope (a pipeline's name, or `*`). A pure value fed one record at a time, so
/// the rules below are tested alone.
///
/// Rules:
/// - The latest record of a scope is its truth (the topic is compacted by scope); a valid
///   document replaces the scope's overrides whole.
/// - A tombstone (no value) removes the scope's overrides: its pipelines go back to their files.
/// - A record that does not validate is refused, naming the key and value at fault, and the
///   scope's last good document stays in force.
/// - A record keyed `<pipeline>/cancel/<tag>` is a `ControlCancel`: it adds to the pipeline's
///   cancels (no override or other cancel replaces it); its tombstone lifts it.
public struct ControlBoard: Sendable, Hashable {
    /// What one record did.
    public enum Change: Sendable, Hashable, CustomStringConvertible {
        /// `document` is now in force for `scope`.
        case activated(scope: String, ControlDocument)
        /// `scope` has no overrides any more (a tombstone, with who wrote it and why when its
        /// headers say).
        case reset(scope: String, updatedBy: String?, reason: String?)
        /// The record was refused; the scope's previous document (if any) stays in force.
        case refused(scope: String, ControlError)
        /// A cancel of pipeline `scope`'s work is in force.
        case cancelled(scope: String, ControlCancel)
        /// The cancel keyed `tag` of pipeline `scope` was lifted (a tombstone).
        case cancelLifted(scope: String, tag: String)

        /// The scope the record was written for.
        public var scope: String {
            switch self {
            case .activated(let scope, _), .reset(let scope, _, _), .refused(let scope, _), .cancelled(let scope, _), .cancelLifted(let scope, _): scope
            }
        }

        /// Whether it can change the settings of pipeline `name`.
        public func affects(pipeline name: String) -> Bool {
            scope == name || scope == ControlDocument.allPipelines
        }

        public var description: String {
            switch self {
            case .activated(let scope, let document):
                let overrides = document.overrides.sorted { $0.key < $1.key }.map { "\($0.key.rawValue)=\($0.value)" }
                return
                    "\(scope) v\(document.version) by \(Self.shown(document.updatedBy)) at \(document.updatedAt.formatted(.iso8601)) (\(Self.shown(document.reason))): \(overrides.isEmpty ? "no overrides" : overrides.joined(separator: ", "))"
            case .reset(let scope, let updatedBy, let reason):
                return "\(scope) reset to the pipeline files by \(updatedBy.map(Self.shown) ?? "?") (\(reason.map(Self.shown) ?? "no reason given"))"
            case .refused(let scope, let error): return "\(scope) refused: \(error)"
            case .cancelled(_, let cancel): return cancel.description
            case .cancelLifted(let scope, let tag): return "\(scope) cancel \(tag) lifted"
            }
        }

        /// An author or reason as a log line shows it: cut to `ControlDocument.maxShownBytes`.
        private static func shown(_ text: String) -> String {
            text.utf8Prefix(maxBytes: ControlDocument.maxShownBytes)
        }
    }

    /// The document in force for each scope.
    public private(set) var documents: [String: ControlDocument] = [:]
    /// The highest version ever read per scope, tombstoned ones included: a new version is one
    /// more than this.
    public private(set) var latestVersions: [String: Int] = [:]
    /// The cancels in force, by pipeline, then by tag.
    public private(set) var cancels: [String: [String: ControlCancel]] = [:]
    /// The highest cancel version ever read per pipeline: a new cancel's is one more.
    public private(set) var latestCancelVersions: [String: Int] = [:]

    /// Nothing read yet: every pipeline runs on its file.
    public init() {}

    /// Reads one record of the control topic: its key is the scope, its value the document.
    public mutating func receive(_ record: KafkaRecord) -> Change {
        guard let key = record.key, let scope = String(validating: key, as: UTF8.self), !scope.isEmpty else {
            return .refused(scope: "?", .malformed("the record at offset \(record.offset) has no key naming its scope"))
        }
        // Before the key is compared or hashed, in time quadratic in such text.
        guard !StreamSafeText.exceedsLimit(scope) else {
            return .refused(scope: "?", .malformed("the key of the record at offset \(record.offset) \(StreamSafeText.reason)"))
        }
        if let (pipeline, tag) = ControlCancel.split(key: scope) {
            guard let value = record.value else {
                cancels[pipeline]?[tag] = nil
                return .cancelLifted(scope: pipeline, tag: tag)
            }
            do {
                let cancel = try ControlCancel.parse(key: scope, value)
                apply(cancel)
                return .cancelled(scope: pipeline, cancel)
            } catch {
                return .refused(scope: pipeline, error)
            }
        }
        guard let value = record.value else {
            apply(scope: scope, nil)
            return .reset(
                scope: scope, updatedBy: record.headers.string(ControlTopic.updatedByHeader), reason: record.headers.string(ControlTopic.reasonHeader))
        }
        do {
            let document = try ControlDocument.parse(value)
            apply(scope: scope, document)
            return .activated(scope: scope, document)
        } catch {
            return .refused(scope: scope, error)
        }
    }

    /// Puts `document` in force for `scope` (nil: removes the scope's overrides), as reading a
    /// valid record of it would.
    public mutating func apply(scope: String, _ document: ControlDocument?) {
        documents[scope] = document
        if let document { latestVersions[scope] = max(latestVersions[scope] ?? 0, document.version) }
    }

    /// Puts `cancel` in force, as reading its record would.
    public mutating func apply(_ cancel: ControlCancel) {
        cancels[cancel.pipeline, default: [:]][cancel.tag] = cancel
        latestCancelVersions[cancel.pipeline] = max(latestCancelVersions[cancel.pipeline] ?? 0, cancel.version)
    }

    /// The version a new cancel of `pipeline` gets: one more than any read, at most
    /// `ControlDocument.maxVersion` (a record at the highest makes the next one equal, never
    /// one that no worker reads).
    public func nextCancelVersion(of pipeline: String) -> Int {
        min((latestCancelVersions[pipeline] ?? 0) + 1, ControlDocument.maxVersion)
    }

    /// The version a new document of `scope` gets: one more than any read, at most
    /// `ControlDocument.maxVersion`.
    public func nextVersion(of scope: String) -> Int {
        min((latestVersions[scope] ?? 0) + 1, ControlDocument.maxVersion)
    }

    /// The settings pipeline `file` runs with under the documents in force.
    public func settings(for file: PipelineConfiguration) -> ControlledSettings {
        ControlledSettings(
            file: file, all: documents[ControlDocument.allPipelines], own: documents[file.name],
            cancels: (cancels[file.name] ?? [:]).values.sorted { ($0.version, $0.tag) < ($1.version, $1.tag) })
    }
}
