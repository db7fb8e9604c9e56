import ArgumentParser
import CommandSupport
import Foundation
import Pipeline

/// The topics the operator commands use when none is named: those of the pipeline files
/// (`--pipelines`, `pipelines/` by default), so the command line writes no topic name of its own.
struct PipelineTopics: ParsableArguments {
    @Option(help: ArgumentHelp("The pipeline files whose topics are the defaults (a folder or one file).", valueName: "path"))
    var pipelines = Self.defaultFolder

    /// Where the pipeline files are unless `--pipelines` says otherwise.
    static let defaultFolder = "pipelines"

    /// The pipeline files.
    ///
    /// - Throws: `RuntimeError` with the status of a pipeline file that cannot be used
    ///   (configuration, as `run` and `control` report it), naming the file and `option`, which
    ///   would have made it unneeded; no usage help, since the command line is not what is wrong.
    ///   When `--pipelines` was left at its default and no such folder is here, the command
    ///   line lacks `option`: a usage error naming it.
    func load(orName option: String) throws -> [PipelineConfiguration] {
        if pipelines == Self.defaultFolder, !FileManager.default.fileExists(atPath: pipelines) {
            throw ValidationError(
                "\(option) is needed: there is no \(Self.defaultFolder)/ folder here to take it from (give \(option), or --pipelines with the pipeline files)")
        }
        do { return try PipelineFile.loadAll(pipelines) } catch {
            throw RuntimeError(ExitStatus(error), "\(error) (the default of \(option) comes from the pipeline files; or give \(option))")
        }
    }

    /// The pipeline files, when there are any to read; none without `--pipelines` and a
    /// `pipelines/` folder here, and none, with a warning saying `without` (what the command does
    /// without them), when they cannot be read: a command that only takes more from them is not
    /// held up by a broken file.
    func readable(without: String) -> [PipelineConfiguration] {
        if pipelines == Self.defaultFolder, !FileManager.default.fileExists(atPath: pipelines) { return [] }
        do { return try PipelineFile.loadAll(pipelines) } catch {
            Output.error("warning: the pipeline files in \(pipelines) cannot be read (\(error)): \(without)")
            return []
        }
    }

    /// The request topic of the pipeline that takes `op`.
    func requestTopic(for op: RequestOp, orName option: String) throws -> String {
        let files = try load(orName: option)
        guard let pipeline = PipelineConfiguration.pipeline(for: op, in: files) else {
            throw ValidationError("\(option) is needed: no pipeline file in \(pipelines) takes \(op.rawValue)")
        }
        return pipeline.requestTopic
    }

    /// The request topics of every pipeline file that may take `op` (its `ops` list it, or it has
    /// none).
    func requestTopics(taking op: RequestOp, orName option: String) throws -> [String] {
        let topics = Array(Set(try load(orName: option).filter { $0.takes(op) }.map(\.requestTopic))).sorted()
        guard !topics.isEmpty else { throw ValidationError("\(option) is needed: no pipeline file in \(pipelines) takes \(op.rawValue)") }
        return topics
    }

    /// Every request topic of the pipeline files.
    func requestTopics(orName option: String) throws -> [String] {
        Array(Set(try load(orName: option).map(\.requestTopic))).sorted()
    }

    /// Every outcome topic of the pipeline files.
    func outcomeTopics(orName option: String) throws -> [String] {
        Array(Set(try load(orName: option).map(\.outcomeTopic))).sorted()
    }
}
