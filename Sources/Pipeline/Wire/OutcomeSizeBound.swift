import InstanceAPI
import WireJSON

/// The most bytes a request's outcome can take on the wire, computed from the request alone, so
/// that a request whose outcome could not be published is refused when it arrives instead of
/// sticking its partition later.
///
/// The bound covers the worst case: every item failing (each listed in `failedItems`, with a code
/// of up to `maxCodeBytes` and no message, see `Outcome.wireBytes(limit:)`), a distinct count key
/// per item, an erasure receipt line per installation, and an import per APNs token with a
/// registration token of up to `APILimits.answeredTokenBytes` (longer is not the API's answer), a
/// full group of such tokens per `groups.export` item, a device group's key of that size, the
/// record's position with a topic name of Kafka's longest, and a `topicsOmitted` entry per
/// `instances.info` item with `details`
/// (topic lists are not bounded: `Outcome.wireBytes(limit:)` leaves them out when they do not
/// fit). Strings are counted as JSON-escaped.
public enum OutcomeSizeBound {
    /// The longest result code an outcome carries (`UNKNOWN(...)` texts are cut to fit).
    public static let maxCodeBytes = 80
    /// A failed item's fixed part: `{"attempts":…,"code":"…","index":…,"item":"","retryable":false},`.
    static let failedItemBytes = 12 + 10 + 9 + 2 * maxCodeBytes + 10 + 10 + 9 + 20 + 1
    /// A count's worst case: `"<code>":<n>,`.
    static let countBytes = 2 * maxCodeBytes + 14
    /// A receipt line's fixed part: `{"at":"<date>","code":"…","item":""},`.
    static let receiptBytes = 7 + 30 + 10 + 2 * maxCodeBytes + 10 + 3
    /// An import's fixed part and its registration token: `"<apns>":"<token>",`.
    static let importBytes = 6 + 2 * APILimits.answeredTokenBytes
    /// A group's members, `"<group>":["<token>",…],` with `APILimits.groupMembers` tokens.
    static let groupExportBytes = 6 + APILimits.groupMembers * (2 * APILimits.answeredTokenBytes + 3)
    /// A device group's key, `"notificationKey":"<key>",`, once per request, beside the fixed part.
    static let notificationKeyBytes = 20
    /// A `topicsOmitted` entry's fixed part: `"",`.
    static let omittedBytes = 3
    /// The record the outcome answers, `"record":"<topic>/<partition>/<offset>",`, once per request:
    /// its two `/` are written `\/`.
    static let recordBytes = 12 + RecordPosition.maxDescriptionBytes + 2
    /// Everything else: field names, status, dates, counts of backend calls, the target.
    static let fixedBytes = 2_048

    /// How many times its bytes in a request record an item can take in the outcome, with room:
    /// `/` (1 byte in the record) is written `\/`, 2; an escape the record needs (`\n`, `\u0001`)
    /// is written no longer than the record holds it (`JSONWriter.escapedByteCount(of:)`); any
    /// other byte 1:1 at most. So the growth is 2 at most; 3 is the bound's margin.
    static let maxEscapeGrowth = 3

    /// The bound for `request`, reading every item.
    public static func bytes(of request: PipelineRequest) -> Int {
        bytes(of: request, escapedItemBytes: request.items.reduce(0) { $0 + JSONWriter.escapedByteCount(of: $1) })
    }

    /// A bound for `request` read from a record of `recordBytes` bytes, without reading the items:
    /// the items are parts of the record, so together they take at most `maxEscapeGrowth` times
    /// its size. Never below `bytes(of:)`; a request it accepts needs no closer look.
    public static func bytes(of request: PipelineRequest, recordBytes: Int) -> Int {
        bytes(of: request, escapedItemBytes: maxEscapeGrowth * recordBytes)
    }

    /// The bound with `escapedItemBytes` for the items' escaped bytes together.
    private static func bytes(of request: PipelineRequest, escapedItemBytes: Int) -> Int {
        // Counted as its replay's would be, so that what is admitted stays admissible replayed:
        // a replay names its own id in `replayOf` (`DeadLetter.replay(batch:)`) and may join a
        // batch of any name.
        let id = JSONWriter.escapedByteCount(of: request.id)
        var total = fixedBytes + recordBytes + 2 * (id + max(id, JSONWriter.escapedByteCount(of: request.replayOf ?? "")))
        // `"batch":"<name>",`: a batch name needs no escapes (`BatchName`).
        total += max(request.batch?.utf8.count ?? 0, BatchName.maxBytes) + 11
        for value in request.target.outcomeFields.values { total += JSONWriter.escapedByteCount(of: value) + 32 }
        let listsTopics = request.target == .info(details: true)
        let perItem =
            failedItemBytes + countBytes
            + (request.op == .installationsDelete ? receiptBytes : 0) + (request.op == .apnsImport ? importBytes : 0)
            + (request.op == .groupsExport ? groupExportBytes : 0) + (listsTopics ? omittedBytes : 0)
        let copies = 1 + ([.installationsDelete, .apnsImport, .groupsExport].contains(request.op) || listsTopics ? 1 : 0)
        // The key an answer carried (at most `APILimits.answeredTokenBytes`), or the request's own
        // when none did, which the target already counts once.
        var key = 0
        if [.groupsCreate, .groupsAdd, .groupsRemove].contains(request.op) {
            let requested = if case .group(_, let key?) = request.target { JSONWriter.escapedByteCount(of: key) } else { 0 }
            key = notificationKeyBytes + max(2 * APILimits.answeredTokenBytes, requested)
        }
        return total + key + perItem * request.items.count + copies * escapedItemBytes
    }
}
