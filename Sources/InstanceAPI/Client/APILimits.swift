import WireJSON

/// The limits and shape rules of the backend APIs, checked before any call is sent.
public enum APILimits {
    /// Tokens per batchAdd / batchRemove call.
    public static let topicBatch = 1_000
    /// APNs tokens per batchImport call.
    public static let importBatch = 100
    /// Members of one device group.
    public static let groupMembers = 20
    /// Topic subscriptions one instance may hold.
    public static let topicsPerInstance = 2_000
    /// The largest page of one registration's topic subscriptions the FCM v1 list call returns.
    public static let topicListPage = 2_000
    /// The most bytes of a topic name (§2.6: `[a-zA-Z0-9-_.~%]{1,900}`).
    public static let topicNameBytes = 900
    /// What a topic name matches, as messages say it.
    public static let topicNameRule = "[a-zA-Z0-9-_.~%]{1,\(topicNameBytes)}"
    /// The most bytes of a token an answer carries back (a registration token from an import, a
    /// device group's `notification_key`, a group's member): Google's are under 200. A longer one
    /// is not the API's answer; outcomes are bounded by it (`OutcomeSizeBound`).
    public static let answeredTokenBytes = 400

    /// The most items (tokens, ids, members, groups) one call of `api` carries: `topicBatch` for
    /// batchAdd / batchRemove, `importBatch` for batchImport, `groupMembers` for a device-group
    /// change, and one for every per-item API (FCM v1 subscribe / unsubscribe / list, instance
    /// info and relation, installation deletion, group export; the send and the token endpoint
    /// carry no item list). Never less than one.
    public static func itemsPerCall(_ api: BackendAPI) -> Int {
        switch api {
        case .batchAdd, .batchRemove: topicBatch
        case .batchImport: importBatch
        case .deviceGroup: groupMembers
        case .instanceInfo, .topicRelation, .fcmSubscribe, .fcmUnsubscribe, .fcmListTopics, .deleteInstance, .groupExport, .token: 1
        }
    }

    /// The most bytes of body an answer of `api` may have: 128 KiB for calls about one item
    /// (their answers are `{}`, a key, a short error), 1 MiB for the batch calls (a result per
    /// token), 4 MiB for the lists (a page of 2,000 topic names of up to 900 characters, a
    /// registration's info with its topics). A longer answer is not read: with hundreds of calls
    /// in flight, answers of megabytes each (a proxy's page) would hold gigabytes.
    public static func answerBytes(_ api: BackendAPI) -> Int {
        switch api {
        case .batchAdd, .batchRemove, .batchImport: 1 << 20
        case .fcmListTopics, .instanceInfo, .groupExport: 4 << 20
        case .topicRelation, .fcmSubscribe, .fcmUnsubscribe, .deleteInstance, .deviceGroup, .token: 128 << 10
        }
    }

    /// The topic name without a `/topics/` prefix, checked against `[a-zA-Z0-9-_.~%]{1,900}`
    /// (`topicNameBytes`): what the API takes, and what its topic list may name.
    ///
    /// - Throws: `.invalidArgument` naming the topic when it is empty, longer than
    ///   `topicNameBytes` or has other characters.
    public static func topicName(_ topic: String) throws(InstanceAPIError) -> String {
        let name = topic.hasPrefix("/topics/") ? String(topic.dropFirst("/topics/".count)) : topic
        guard !name.isEmpty else {
            throw .invalidArgument(field: "topic", value: topic, reason: "must not be empty")
        }
        guard name.utf8.count <= topicNameBytes else {
            throw .invalidArgument(field: "topic", value: topic, reason: "must be at most \(topicNameBytes) bytes, has \(name.utf8.count)")
        }
        guard name.unicodeScalars.allSatisfy(isTopicCharacter) else {
            throw .invalidArgument(field: "topic", value: topic, reason: "must match \(topicNameRule)")
        }
        return name
    }

    /// Checks a list of items for one call: non-empty, at most `limit`, no empty string.
    ///
    /// - Throws: `.invalidArgument` naming `field` and the offending index or count.
    public static func items(_ items: [String], field: String, limit: Int) throws(InstanceAPIError) {
        try self.items(count: items.count, firstEmpty: items.firstIndex(where: \.isEmpty), field: field, limit: limit)
    }

    /// The same check for packed items, without making a `String` of any.
    public static func items(_ items: PackedStrings, field: String, limit: Int) throws(InstanceAPIError) {
        try self.items(count: items.count, firstEmpty: items.indices.first { items.byteCount($0) == 0 }, field: field, limit: limit)
    }

    private static func items(count: Int, firstEmpty: Int?, field: String, limit: Int) throws(InstanceAPIError) {
        guard count > 0 else { throw .invalidArgument(field: field, value: "[]", reason: "must not be empty") }
        guard count <= limit else {
            throw .invalidArgument(field: field, value: "\(count) items", reason: "at most \(limit) per call")
        }
        if let index = firstEmpty {
            throw .invalidArgument(field: "\(field)[\(index)]", value: "", reason: "must be a non-empty string")
        }
    }

    /// Checks a token an answer of `api` carried back in `field`: 1 to `answeredTokenBytes` bytes
    /// of printable ASCII without `"`, `\\` or `/`, as Google's tokens and keys are.
    ///
    /// - Throws: `.malformedResponse` naming the field and its size or the byte refused.
    public static func answeredToken(_ value: String, field: String, api: BackendAPI, status: Int) throws(InstanceAPIError) {
        let count = value.utf8.count
        guard (1...answeredTokenBytes).contains(count) else {
            throw .malformedResponse(api: api, status: status, message: "a \(field) of \(count) bytes is not the API's answer (1 to \(answeredTokenBytes))")
        }
        if let bad = value.utf8.first(where: { !(0x21...0x7E).contains($0) || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "/") })
        {
            throw .malformedResponse(api: api, status: status, message: "a \(field) holding byte 0x\(String(bad, radix: 16)) is not the API's answer")
        }
    }

    /// Checks one identifier (token, installation id, key; with `isName`, a device group's name):
    /// non-empty, and no character `identifierProblem` refuses.
    public static func identifier(_ value: String, field: String, isName: Bool = false) throws(InstanceAPIError) {
        guard !value.isEmpty else { throw .invalidArgument(field: field, value: value, reason: "must not be empty") }
        if let problem = identifierProblem(value, isName: isName) { throw .invalidArgument(field: field, value: value, reason: problem) }
    }

    /// Why `value` cannot be an identifier, or nil: it holds Unicode whitespace, a control
    /// character (C0, DEL, C1), a format character (zero-width ones, bidirectional overrides: an
    /// id of other bytes that shows as another, `fid-abc` and `fid-abc` U+200B), or a `/`; or it
    /// is not stream-safe text (`StreamSafeText`). No token or id holds any of them. A name
    /// (`isName`: a device group's, which users choose) may hold the joiners (`nameJoiners`): a
    /// zero-width joiner in an emoji, a zero-width non-joiner in Persian. ASCII text (every token and id) is
    /// looked at byte by byte; other text scalar by scalar, whose Unicode property lookups cost a
    /// call each.
    public static func identifierProblem(_ value: String, isName: Bool = false) -> String? {
        for byte in value.utf8 {
            switch byte {
            case 0x00...0x20, 0x7F, UInt8(ascii: "/"): return isName ? nameRule : identifierRule
            case 0x80...:
                let refused = value.unicodeScalars.contains { scalar in
                    scalar.value < 0x21 || scalar.value == 0x7F || scalar == "/" || scalar.properties.isWhitespace
                        || scalar.properties.generalCategory == .control
                        || (scalar.properties.generalCategory == .format && !(isName && nameJoiners.contains(scalar.value)))
                }
                if refused { return isName ? nameRule : identifierRule }
                return StreamSafeText.exceedsLimit(value.unicodeScalars) ? StreamSafeText.reason : nil
            default: continue
            }
        }
        return nil
    }

    /// What `identifierProblem` says of a refused character.
    static let identifierRule = "must not contain whitespace, a control or format character, or '/'"
    /// The format characters a name may hold: the zero-width non-joiner and joiner (Persian and
    /// Indic spelling, emoji sequences); no other, none of which changes how a name reads but
    /// hides it (zero-width spaces, bidirectional overrides).
    static let nameJoiners: Set<UInt32> = [0x200C, 0x200D]

    /// What `identifierProblem` says of a refused character in a name.
    static let nameRule = "must not contain whitespace, a control or format character other than a joiner, or '/'"

    private static func isTopicCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "-", "_", ".", "~", "%": true
        default: false
        }
    }
}
