import Foundation
import Testing

/// The suites' fixed ports cannot collide: each draws from a range of its own.
@Suite("Test port ranges")
struct TestPortsTests {
    @Test("the ranges are disjoint, below the ephemeral range, and every random port in Tests/ draws from one of them")
    func disjoint() throws {
        let ranges = TestPorts.all.sorted { $0.value.lowerBound < $1.value.lowerBound }
        for (lower, upper) in zip(ranges, ranges.dropFirst()) {
            #expect(!lower.value.overlaps(upper.value), "\(lower.key) \(lower.value) overlaps \(upper.key) \(upper.value)")
        }
        #expect(ranges.allSatisfy { $0.value.lowerBound >= 1024 && $0.value.upperBound <= 32_768 })
        // No suite draws a port from a literal range of its own (the seeded generators of the
        // model tests draw counts, not ports).
        let tests = ReadmeScript.repository.appendingPathComponent("Tests")
        let files = FileManager.default.enumerator(atPath: tests.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        for file in files {
            let text = try String(contentsOf: tests.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") where line.contains(/[Pp]ort.*random\(in: [0-9_]+\.\./) || line.contains(/ports: [0-9_]+\.\./) {
                #expect(file.hasSuffix("EmbeddedKafkaTests.swift") && line.contains("29_000..<32_000"), "\(file): \(line)")
            }
        }
    }
}
