import Foundation
import Testing

@testable import InstanceAPI

@Suite("Path segments: percent-encoded as RFC 3986 says")
struct PathSegmentTests {
    /// RFC 3986's unreserved characters, the only ones a segment keeps as they are.
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    @Test("every byte but the unreserved ASCII is %XX, as Foundation encodes with that set, and decodes back to the text")
    func encodesAsFoundation() {
        let pieces = ["a", "Z", "9", "-", ".", "_", "~", ":", "%", "/", " ", "?", "&", "=", "+", "é", "Ö", "😀", "APA91b", "\u{7F}", "\u{01}"]
        var random = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let text = (0..<Int.random(in: 0...12, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            let encoded = InstanceAPIClient.segment(text)
            guard text != ".", text != ".." else { continue }  // dot segments: below
            #expect(encoded == text.addingPercentEncoding(withAllowedCharacters: Self.unreserved), "\(text)")
            #expect(encoded.removingPercentEncoding == text, "\(text)")
        }
        #expect(InstanceAPIClient.segment("bk3RNwTe3H0:CI2k_HHwgIpoDKCIZvvDMExUdFQ3P1") == "bk3RNwTe3H0%3ACI2k_HHwgIpoDKCIZvvDMExUdFQ3P1")
        #expect(InstanceAPIClient.segment("café") == "caf%C3%A9")
    }

    @Test("a segment of only dots is encoded: a front end that normalizes paths would take it for this or the parent segment")
    func dotSegments() {
        #expect(InstanceAPIClient.segment(".") == "%2E" && InstanceAPIClient.segment("..") == "%2E%2E")
        #expect(InstanceAPIClient.segment("...") == "..." && InstanceAPIClient.segment("a.b") == "a.b", "not dot segments")
        #expect(InstanceAPIClient.segment("..").removingPercentEncoding == "..")
    }
}
