import Foundation

/// The settings a pipeline runs with now, and where each comes from: the Remote Config model of
/// api-reference §5 applied to iidbatch's own settings. Precedence, highest first: the override
/// of the pipeline's own scope, the override of `*`, the pipeline file, the built-in default.
///
/// A pure value: built from the file and the two documents, so precedence is tested alone.
public struct ControlledSettings: Sendable, Hashable {
    /// Where a setting's value comes from.
    public enum Source: Sendable, Hashable, CustomStringConvertible {
        /// iidbatch's built-in default.
        case builtIn
        /// The pipeline file.
        case file
        /// A control document: its scope (the pipeline's name or `*`), version and author.
        case override(scope: String, version: Int, updatedBy: String)

        public var description: String {
            switch self {
            case .builtIn: "default"
            case .file: "file"
            case .override(let scope, let version, let updatedBy): "override \(scope) v\(version) by \(updatedBy)"
            }
        }
    }

    /// One setting's value and source.
    public struct Setting: Sendable, Hashable {
        /// The value.
        public var value: ControlValue
        /// Where it comes from.
        public var source: Source

        /// A setting.
        public init(value: ControlValue, source: Source) {
            self.value = value
            self.source = source
        }
    }

    /// Every setting that has a value (`rate-limit` has none when neither the file nor an
    /// override sets one: no ceiling).
    public private(set) var settings: [ControlKey: Setting] = [:]

    /// The version of each control document applied, by scope (the pipeline's name, `*`).
    public private(set) var overrideVersions: [String: Int] = [:]

    /// The pipeline's cancels in force, in the order they were written.
    public private(set) var cancels: [ControlCancel]

    /// The settings of `file` under the overrides of `*` (`all`) and of the pipeline (`own`),
    /// with the pipeline's `cancels`.
    public init(file: PipelineConfiguration, all: ControlDocument?, own: ControlDocument?, cancels: [ControlCancel] = []) {
        self.cancels = cancels
        func base(_ key: ControlKey, _ value: ControlValue?) {
            guard let value else { return }
            settings[key] = Setting(value: value, source: file.fileSettings.contains(key) ? .file : .builtIn)
        }
        base(.paused, .flag(false))
        base(.rateLimit, file.callsPerSecond.map(ControlValue.number))
        base(.concurrency, .count(file.concurrency))
        base(.maxInFlightItems, .count(file.maxInFlightItems))
        base(.retryMaxAttempts, .count(file.retry.maxAttempts))
        base(.retryMaxElapsed, .duration(file.retry.maxElapsed))
        for (scope, document) in [(ControlDocument.allPipelines, all), (file.name, own)] {
            guard let document else { continue }
            overrideVersions[scope] = document.version
            for (key, value) in document.overrides {
                settings[key] = Setting(value: value, source: .override(scope: scope, version: document.version, updatedBy: document.updatedBy))
            }
        }
    }

    /// The first cancel that matches `request`, produced at `producedAt`, if any.
    public func cancel(of request: PipelineRequest, producedAt: Date?) -> ControlCancel? {
        cancels.first { $0.matches(request, producedAt: producedAt) }
    }

    /// Whether the pipeline is paused.
    public var paused: Bool { settings[.paused]?.value == .flag(true) }

    /// `file` with these settings in place.
    public func applied(to file: PipelineConfiguration) -> PipelineConfiguration {
        var configuration = file
        if case .number(let rate)? = settings[.rateLimit]?.value { configuration.callsPerSecond = rate }
        if case .count(let count)? = settings[.concurrency]?.value { configuration.concurrency = count }
        if case .count(let count)? = settings[.maxInFlightItems]?.value { configuration.maxInFlightItems = count }
        if case .count(let count)? = settings[.retryMaxAttempts]?.value { configuration.retry.maxAttempts = count }
        if case .duration(let duration)? = settings[.retryMaxElapsed]?.value { configuration.retry.maxElapsed = duration }
        return configuration
    }

    /// Every setting as `key=value (source)`, in key order, for logs.
    public var summary: String {
        settings.sorted { $0.key < $1.key }.map { "\($0.key.rawValue)=\($0.value.value) (\($0.value.source))" }.joined(separator: ", ")
    }

    /// The settings whose value differ from `previous`, as `key: old → new (source)`, in key order.
    public func changes(from previous: ControlledSettings) -> [String] {
        ControlKey.allCases.sorted().compactMap { key in
            let old = previous.settings[key]?.value
            let new = settings[key]
            guard old != new?.value else { return nil }
            return "\(key.rawValue): \(old.map(\.description) ?? "none") → \(new.map { "\($0.value) (\($0.source))" } ?? "none")"
        } + added(since: previous).map(\.description)
    }

    /// The cancels in force here that `previous` did not have, in order (a set of the earlier
    /// ones is asked: thousands of cancels cost no more than reading them).
    public func added(since previous: ControlledSettings) -> [ControlCancel] {
        let before = Set(previous.cancels)
        return cancels.filter { !before.contains($0) }
    }
}
