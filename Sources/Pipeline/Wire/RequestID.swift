import Crypto
import Foundation
import InstanceAPI

/// The bound on a request id's size and the short form that names an id past it: the one place
/// both are written.
///
/// An id travels in the outcome's key and `requestId`, in a dead letter's header, in replays'
/// `replayOf` and in log lines; its bound keeps every one of them small, whatever a producer
/// writes. A record whose `id` or `replayOf` is longer is rejected (`RequestDecoder`), and its
/// rejection, outcome, dead-letter header and log lines name it by `shortForm(_:)`.
///
/// An id is also one string of characters (`isNormalized(_:)`): a record whose `id` or `replayOf`
/// is not in Unicode normalization form C is rejected, and its rejection is named by the record's
/// position, not by the id. So two ids the worker and the operator's tools (receipts, reconcile,
/// erasure reports, `outcomes --request-id`) compare as Swift does, by canonical equivalence, are
/// equal exactly when their bytes are, as the outcome topic's compaction and the dead letters'
/// headers compare them: no request's outcome can stand for another's.
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

    /// Whether `id` is in Unicode normalization form C (NFC): its bytes are those of its
    /// characters' composed form, as nearly every producer writes text. Two NFC strings are equal
    /// as Swift `String`s exactly when their bytes are; `e` + U+0301 (NFD `é`) and the Kelvin sign
    /// U+212A (whose NFC form is `K`) are not NFC.
    public static func isNormalized(_ id: String) -> Bool {
        id.utf8.allSatisfy { $0 < 0x80 } || id.utf8.elementsEqual(id.precomposedStringWithCanonicalMapping.utf8)
    }

    /// `id` itself when it takes at most `maxBytes` bytes; else its first `keptBytes` bytes (cut
    /// at a UTF-8 boundary), `…sha256:` and the lowercase hex SHA-256 of its whole UTF-8: at most
    /// 138 bytes, distinct for distinct ids, and found by a producer that hashes the id it sent.
    public static func shortForm(_ id: String) -> String {
        guard id.utf8.count > maxBytes else { return id }
        return id.utf8Prefix(maxBytes: keptBytes) + "…sha256:" + NumberText.hex(SHA256.hash(data: Array(id.utf8)))
    }
}
