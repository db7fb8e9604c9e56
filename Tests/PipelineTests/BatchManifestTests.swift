import Foundation
import Kafka
import Pipeline
import Testing

@Suite("Batch manifests on the wire")
struct BatchManifestTests {
    static let created = Date(timeIntervalSince1970: 1_800_000_000.25)

    static func manifest(_ state: BatchManifest.State = .submitting, op: RequestOp? = .installationsDelete, pipeline: String? = "deletions") -> BatchManifest {
        BatchManifest(
            name: "gdpr-7", op: op, pipeline: pipeline, requestTopics: ["deletions"], requests: 120, items: 12_000, createdBy: "alice",
            createdAt: created, inputSHA256: BatchManifest.inputDigest(Array("fid-1\n".utf8)), state: state)
    }

    @Test("a manifest round-trips, with and without op and pipeline; members in sorted order")
    func roundTrip() throws {
        var submitted = Self.manifest(.submitted)
        submitted.idPrefix = "id-9f86d081884c7d65"
        var skipping = submitted
        skipping.skippedLines = 3
        for manifest in [Self.manifest(), Self.manifest(.submitted, op: nil, pipeline: nil), submitted, skipping] {
            let bytes = manifest.jsonBytes()
            #expect(try BatchManifest.parse(bytes) == manifest)
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(text.hasPrefix("{\"createdAt\":\"2027-01-15T08:00:00.250Z\",\"createdBy\":\"alice\""), "\(text)")
        }
    }

    @Test("the writer writes every member the reader knows, by the one list of wire names")
    func membersHaveOneOwner() throws {
        var manifest = Self.manifest()
        manifest.idPrefix = "id-9f86d081884c7d65"
        manifest.skippedLines = 1
        let object = try #require(try JSONSerialization.jsonObject(with: Data(manifest.jsonBytes())) as? [String: Any])
        #expect(Set(object.keys) == BatchManifest.members)
        #expect(BatchManifest.members == Set(BatchManifest.Field.allCases.map(\.rawValue)))
    }

    /// The receipt audit: without `--strict`, submit skips bad lines, and nothing in the batch
    /// said so; the receipt looked complete for a file some of whose ids were never submitted.
    @Test("the lines submit skipped are in the manifest when there are any, and absent when none")
    func skippedLines() throws {
        let none = BatchManifest(
            name: "gdpr-7", op: .installationsDelete, pipeline: nil, requestTopics: ["deletions"], requests: 1, items: 1, createdBy: "alice",
            createdAt: Self.created, inputSHA256: BatchManifest.inputDigest([]), state: .submitting, skippedLines: 0)
        #expect(none.skippedLines == nil && !String(decoding: none.jsonBytes(), as: UTF8.self).contains("skippedLines"))
        var some = none
        some.skippedLines = 2
        #expect(String(decoding: some.jsonBytes(), as: UTF8.self).contains(#""skippedLines":2"#))
        #expect(try BatchManifest.parse(some.jsonBytes()).skippedLines == 2)
    }

    @Test("the input digest is SHA-256 in lowercase hex")
    func digest() {
        #expect(BatchManifest.inputDigest(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test("a batch may own an outcome that names it, unless it is a rejection keyed by a record position (a record without an id)")
    func mayOwn() {
        let manifest = Self.manifest(.submitted)
        func outcome(_ id: String, _ status: OutcomeStatus, batch: String? = "gdpr-7") -> Outcome {
            BatchProgressTests.outcome(id, batch: batch, items: status == .rejected ? 0 : 1, at: 1, status: status)
        }
        #expect(manifest.mayOwn(outcome("r-1", .succeeded)) && manifest.mayOwn(outcome("r-1", .rejected)))
        #expect(!manifest.mayOwn(outcome("r-1", .succeeded, batch: "other")) && !manifest.mayOwn(outcome("r-1", .succeeded, batch: nil)))
        #expect(!manifest.mayOwn(outcome("deletions/0/5", .rejected)) && !manifest.mayOwn(outcome("any.topic_-x/12/34567", .rejected)))
        #expect(manifest.mayOwn(outcome("deletions/0/5", .succeeded)), "a request that called had an id of its own")
        for id in ["deletions/0", "/0/5", "deletions/x/5", "deletions/0/5/6", "deletions/0/-5", "deletions/0/", "a/b/0/5"] {
            #expect(manifest.mayOwn(outcome(id, .rejected)), "\(id)")
        }
        #expect(RecordPosition(parsing: "deletions/3/77") == RecordPosition(topic: "deletions", partition: 3, offset: 77))
        #expect(RecordPosition(parsing: "deletions/99999999999/1") == nil, "past a partition number")
    }

    @Test("each bad field is refused by name")
    func strict() throws {
        let good = String(decoding: Self.manifest().jsonBytes(), as: UTF8.self)
        let cases: [(String, String?)] = [
            (good.replacingOccurrences(of: "\"name\":\"gdpr-7\"", with: "\"name\":\"-bad\""), "name"),
            (good.replacingOccurrences(of: "\"op\":\"installations.delete\"", with: "\"op\":\"frobnicate\""), "op"),
            (good.replacingOccurrences(of: "\"requests\":120", with: "\"requests\":-1"), "requests"),
            (good.replacingOccurrences(of: "\"items\":12000", with: "\"items\":1.5"), "items"),
            (good.replacingOccurrences(of: "\"state\":\"submitting\"", with: "\"state\":\"running\""), "state"),
            (good.replacingOccurrences(of: "\"createdAt\":\"2027-01-15T08:00:00.250Z\"", with: "\"createdAt\":\"yesterday\""), "createdAt"),
            (good.replacingOccurrences(of: "\"createdBy\":\"alice\"", with: "\"createdBy\":\"\""), "createdBy"),
            (good.replacingOccurrences(of: "\"requestTopics\":[\"deletions\"]", with: "\"requestTopics\":\"deletions\""), "requestTopics"),
            (good.replacingOccurrences(of: "\"createdBy\"", with: "\"surprise\":1,\"createdBy\""), "surprise"),
            (good.replacingOccurrences(of: "\"createdBy\"", with: "\"idPrefix\":7,\"createdBy\""), "idPrefix"),
            ("[1]", nil),
            ("{", nil),
        ]
        for (text, field) in cases {
            #expect(throws: BatchManifestError.self, "\(text)") {
                do { _ = try BatchManifest.parse(Array(text.utf8)) } catch let error as BatchManifestError {
                    #expect(error.field == field, "\(error)")
                    throw error
                }
            }
        }
        var digestless = good
        digestless = digestless.replacingOccurrences(of: Self.manifest().inputSHA256, with: "ABC")
        #expect(throws: BatchManifestError(field: "inputSha256", "must be 64 lowercase hex digits")) { try BatchManifest.parse(Array(digestless.utf8)) }
    }

    @Test("the batch topic keeps the latest manifest per key; a tombstone removes it; a record keyed by another name is refused")
    func contents() {
        var contents = BatchTopic.Contents()
        func record(_ offset: Int64, key: String, _ manifest: BatchManifest?) -> KafkaRecord {
            KafkaRecord(topic: BatchTopic.defaultName, partition: 0, offset: offset, key: Array(key.utf8), value: manifest?.jsonBytes())
        }
        contents.read(record(0, key: "gdpr-7", Self.manifest()))
        contents.read(record(1, key: "gdpr-7", Self.manifest(.submitted)))
        #expect(contents.manifests["gdpr-7"]?.state == .submitted)
        contents.read(record(2, key: "other", Self.manifest()))
        #expect(contents.manifests["other"] == nil)
        #expect(contents.refused.map { $0.position } == ["iidbatch.batches/0/2"])
        contents.read(record(3, key: "gdpr-7", nil))
        #expect(contents.manifests.isEmpty)
    }
}
