import Crypto
import InstanceAPI

/// The bound on a request id's size and the short form that names an id past it: the one place
/// both are written.
///
/// An id travels in the outcome's key and `requestId`, in a dead letter's header, in replays'
/// `replayOf` and in log lines; its bound keeps every one of them small, whatever a producer
/// writes. A record whose `id` or `replayOf` is longer is rejected (`RequestDecoder`), and its
/// rejection, outcome, dead-letter header and log lines name it by `shortForm(_:)`.
public enum RequestID {
    /// The most UTF-8 bytes an `id` or `replayOf` may take.
    public static let maxBytes = 512
    /// The bytes of an over-long id its short form keeps.
    public static let keptBytes = 64

    /// Whether a record or outcome of `id` naming `replayOf` is a replay: of the request with its
    /// own id, as every replay `iidbatch replay` writes is (`DeadLetter.replay(batch:)`). One
    /// naming another id is a request of its own: nothing shows that it carried that request's
    /// items, so its outcome settles none of them.
    public static func isReplay(id: String, replayOf: String?) -> Bool { replayOf == id }

    /// `id` itself when it takes at most `maxBytes` bytes; else its first `keptBytes` bytes (cut
    /// at a UTF-8 boundary), `…sha256:` and the lowercase hex SHA-256 of its whole UTF-8: at most
    /// 138 bytes, distinct for distinct ids, and found by a producer that hashes the id it sent.
    public static func shortForm(_ id: String) -> String {
        guard id.utf8.count > maxBytes else { return id }
        return id.utf8Prefix(maxBytes: keptBytes) + "…sha256:" + NumberText.hex(SHA256.hash(data: Array(id.utf8)))
    }
}
