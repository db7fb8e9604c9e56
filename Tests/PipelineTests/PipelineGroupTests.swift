import Foundation
import Pipeline
import Testing

/// One consumer group per pipeline file in a process: two workers of one process in one group
/// would share the process's `group.instance.id` and fence each other.
@Suite("Pipeline files: one group per file")
struct PipelineGroupTests {
    @Test("two files naming one group (one by default) are refused, naming both files")
    func duplicateGroups() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pipelines-groups-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = folder.appendingPathComponent("a.yaml")
        let second = folder.appendingPathComponent("b.yaml")
        try "request-topic: one\ngroup: workers\n".write(to: first, atomically: true, encoding: .utf8)
        try "request-topic: two\ngroup: workers\n".write(to: second, atomically: true, encoding: .utf8)
        let error = #expect(throws: PipelineFileError.self) { try PipelineFile.loadAll(folder.path) }
        #expect(error?.file == second.path && error?.key == "group", "\(error?.description ?? "")")
        #expect(error?.reason.contains("'workers'") == true && error?.reason.contains(first.path) == true, "\(error?.description ?? "")")

        try "request-topic: two\ngroup: iidbatch-one\n".write(to: second, atomically: true, encoding: .utf8)
        try "request-topic: one\n".write(to: first, atomically: true, encoding: .utf8)
        let implicit = #expect(throws: PipelineFileError.self) { try PipelineFile.loadAll(folder.path) }
        #expect(implicit?.reason.contains("'iidbatch-one'") == true, "a default group counts too: \(implicit?.description ?? "")")

        try "request-topic: two\ngroup: others\n".write(to: second, atomically: true, encoding: .utf8)
        #expect(try PipelineFile.loadAll(folder.path).map(\.group) == ["iidbatch-one", "others"])
    }
}
