import ArgumentParser
import CommandSupport
import Foundation
import Kafka
import Pipeline

/// What the writing `iidbatch control` commands share: checks the scope, writes the next
/// version of a scope's overrides (or its tombstone), and prints what changes for each pipeline
/// it concerns.
struct ControlWriter {
    let topic: ControlTopic
    let pipelines: [PipelineConfiguration]
    private(set) var board: ControlBoard
    let author: ControlAuthor
    /// The cluster written to, and how long it may take to answer: for errors that name them.
    private let kafka: KafkaConfiguration
    private let timeout: KafkaTimeout

    /// A writer on the control topic `connection` opens (`ControlConnection.open`).
    init(opening connection: ControlConnection, author: ControlAuthor) async throws {
        let opened = try await connection.open()
        (topic, pipelines, board) = (opened.topic, opened.pipelines, opened.snapshot.board)
        self.author = author
        self.kafka = try connection.kafka.configuration()
        self.timeout = connection.kafka.timeout
    }

    /// `name` if it is `*` or the name of a pipeline file; a usage error naming the known ones
    /// otherwise.
    func scope(_ name: String) throws -> String {
        guard name == ControlDocument.allPipelines || pipelines.contains(where: { $0.name == name }) else {
            throw ValidationError(
                "unknown pipeline '\(name)'; the pipeline files name \(pipelines.map(\.name).sorted().joined(separator: ", ")) (or use --all)")
        }
        return name
    }

    /// The overrides in force for `scope`.
    func overrides(of scope: String) -> [ControlKey: ControlValue] {
        board.documents[scope]?.overrides ?? [:]
    }

    /// Writes `overrides` as the next version of `scope` (nothing when they are those in force)
    /// and prints the changes.
    mutating func write(_ scope: String, _ overrides: [ControlKey: ControlValue]) async throws {
        guard overrides != self.overrides(of: scope) || board.documents[scope] == nil else {
            Output.line("\(scope): already \(Self.describe(overrides)); nothing written")
            return
        }
        let document = ControlDocument(
            version: board.nextVersion(of: scope), updatedAt: Date(), updatedBy: author.by, reason: author.reason, overrides: overrides)
        do { _ = try ControlDocument.parse(document.jsonBytes()) } catch { throw Self.unreadable("v\(document.version) of \(scope)", error) }
        let topic = self.topic
        let report = try await commit(scope, document, what: "v\(document.version)") { () async throws(KafkaError) in
            try await topic.write(scope: scope, document)
        }
        Output.line("\(scope) v\(document.version) by \(document.updatedBy) written to \(report): \(Self.describe(overrides))")
    }

    /// Writes a tombstone for `scope`: its pipelines go back to their files.
    mutating func reset(_ scope: String) async throws {
        let (topic, author) = (self.topic, self.author)
        let report = try await commit(scope, nil, what: "the tombstone") { () async throws(KafkaError) in
            try await topic.reset(scope: scope, updatedBy: author.by, reason: author.reason)
        }
        Output.line("\(scope) reset by \(author.by), tombstone written to \(report)")
    }

    /// Writes `cancel` (a record of its own, which no other version replaces) and prints it.
    mutating func write(_ cancel: ControlCancel) async throws {
        do { _ = try ControlCancel.parse(key: cancel.recordKey, cancel.jsonBytes()) } catch {
            throw Self.unreadable("cancel v\(cancel.version) of \(cancel.pipeline)", error)
        }
        let report: RecordPosition
        do { report = RecordPosition(try await topic.write(cancel)) } catch {
            throw timeout.failure("writing cancel v\(cancel.version) of \(cancel.pipeline) to \(topic.name)", kafka, error)
        }
        board.apply(cancel)
        Output.line("\(cancel) written to \(report) (key \(cancel.recordKey))")
    }

    /// Sends `document` (nil: a tombstone) for `scope` by `send`, prints what changes for each
    /// pipeline it concerns, and returns where the broker stored it.
    private mutating func commit(
        _ scope: String, _ document: ControlDocument?, what: String, send: () async throws(KafkaError) -> KafkaDeliveryReport
    ) async throws -> RecordPosition {
        var after = board
        after.apply(scope: scope, document)
        let report: RecordPosition
        do { report = RecordPosition(try await send()) } catch { throw timeout.failure("writing \(what) of \(scope) to \(topic.name)", kafka, error) }
        printChanges(scope, to: after)
        return report
    }

    private mutating func printChanges(_ scope: String, to after: ControlBoard) {
        for pipeline in pipelines.sorted(by: { $0.name < $1.name }) where scope == ControlDocument.allPipelines || scope == pipeline.name {
            let changes = after.settings(for: pipeline).changes(from: board.settings(for: pipeline))
            Output.line("  \(pipeline.name): " + (changes.isEmpty ? "no change in force" : changes.joined(separator: "; ")))
        }
        board = after
    }

    /// The error for a record workers would refuse (`error`, from reading it back as they do):
    /// nothing is written, rather than a record reported written that changes nothing.
    private static func unreadable(_ what: String, _ error: ControlError) -> RuntimeError {
        RuntimeError(.software, "\(what) would be refused by every worker (\(error)); nothing written")
    }

    /// `key=value, …` in key order, or `no overrides`.
    static func describe(_ overrides: [ControlKey: ControlValue]) -> String {
        overrides.isEmpty ? "no overrides" : overrides.sorted { $0.key < $1.key }.map { "\($0.key.rawValue)=\($0.value)" }.joined(separator: ", ")
    }
}
