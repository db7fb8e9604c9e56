import Emulator
import Foundation
import Testing

@Suite("The emulator's request target parsing")
struct EmulatorRequestParseTests {
    @Test("path segments and query values decode as Foundation's removingPercentEncoding does")
    func decodesAsFoundation() {
        let segments = [
            "plain", "a%3Ab", "dGVzdA%3AAPA91b-_x", "%E2%84%AA", "caf%C3%A9", "%41%7a%7A", "100%", "%4", "%zz", "%G0", "%C3",
            "%FF%FE", "%00x", "a%2Fb", "%25",
        ]
        for segment in segments {
            let parsed = EmulatorRequest.parse(method: "GET", target: "/v1/" + segment, headers: [:], body: Data())
            let expected = segment.removingPercentEncoding ?? segment
            #expect(parsed.path == ["v1", expected], "segment \(segment)")
        }
    }

    @Test("query names and values: percent-decoded, + as a space, the last value wins, undecodable kept raw")
    func query() {
        let parsed = EmulatorRequest.parse(method: "get", target: "/x?a=1&b=two+words%21&a=3&c&bad=%zz&n%61me=v", headers: [:], body: Data())
        #expect(parsed.method == "GET")
        #expect(parsed.query == ["a": "3", "b": "two words!", "c": "", "bad": "%zz", "name": "v"])
    }
}
