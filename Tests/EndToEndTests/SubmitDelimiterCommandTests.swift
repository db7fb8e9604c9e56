import Foundation
import InstanceAPI
import Kafka
import Pipeline
import Testing

/// `iidbatch submit --csv-delimiter`, as a user runs it (issue 32).
@Suite("iidbatch submit --csv-delimiter, as a user runs it")
struct SubmitDelimiterCommandTests {
    @Test("an Excel ';' CSV (BOM, CRLF) from stdin: the named column becomes the items; --csv-delimiter implies --format csv")
    func semicolonFromStdin() async throws {
        let kafka = try EmbeddedKafka(brokers: 1)
        try kafka.createTopic("deletions", partitions: 1)
        let fids = (1...150).map { "fid-user-9-\(NumberText.digits($0, width: 6))" }
        let csv = "\u{FEFF}user;fid;device\r\n" + fids.map { "user-9;\($0);\"Pixel; 8\"" }.joined(separator: "\r\n") + "\r\n"
        let result = try await OperatorCommand.run(
            ["submit", "--op", "installations.delete", "--subject", "user-9", "--csv-delimiter", ";", "--column", "fid", "--request-topic", "deletions", "-"],
            brokers: kafka.bootstrapServers, stdin: Data(csv.utf8))
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("read -: 150 items"), "\(result.output)")
        let requests = try await OperatorCommand.requests(kafka, "deletions")
        #expect(requests.flatMap(\.request.items) == fids)
    }

    @Test("a bad delimiter, or one given for line input, exits 64 naming the value, before any broker is asked")
    func refusals() async throws {
        // No broker listens on port 1: the refusals come before any connection.
        for (arguments, expected) in [
            (["--csv-delimiter", ":"], "--csv-delimiter: ':' is not a CSV delimiter; use ',', ';', '|' or 'tab'"),
            (["--csv-delimiter", "tab", "--format", "lines"], "--csv-delimiter tab is for CSV input, but --format is lines"),
        ] {
            let result = try await OperatorCommand.run(
                ["submit", "--op", "topics.subscribe", "--topic", "movies"] + arguments + ["-"], brokers: "127.0.0.1:1", stdin: Data("tok-1\n".utf8),
                seconds: 120)
            #expect(result.status == 64, "\(result.output)")
            #expect(result.output.contains(expected), "\(result.output)")
        }
    }
}
