import Foundation
import InstanceAPI

/// The backend's data as the emulator keeps it: registration tokens with their subscriptions,
/// installations, imported APNs tokens and device groups. Guarded by the server's lock.
struct EmulatorState {
    struct Token {
        var project: String
        var application: String
        var platform: String
        /// Its topics and the dates they were added, as ids of the state's name tables.
        var subscriptions = Subscriptions()
        var deleted = false

        /// Subscribes this token to `entry`'s topic for a call of `project`; nil on success, else
        /// the per-item error name. Called in place in the token table, so the record is not copied.
        mutating func subscribe(_ entry: Subscriptions.Entry, project: String) -> String? {
            guard !deleted else { return "NOT_FOUND" }
            guard self.project == project else { return "INVALID_ARGUMENT" }
            return subscriptions.add(entry, limit: APILimits.topicsPerInstance) ? nil : "TOO_MANY_TOPICS"
        }
    }

    struct Installation {
        var project: String
        var deleted = false
    }

    var tokens: [String: Token] = [:]
    var installations: [String: Installation] = [:]
    /// `application|sandbox|apnsToken` → registration token.
    var imports: [String: String] = [:]
    var groups = DeviceGroups()
    /// The topic names and the dates (`yyyy-MM-dd`) subscriptions refer to.
    var topicNames = NameTable()
    var dates = NameTable()

    // MARK: Registration tokens and topics

    /// Why `token` cannot be used by `project`, as a per-item error name; nil when it can. A
    /// live installation id (FID) of the project is a registration too (§2.6).
    func problem(with token: String, project: String) -> String? {
        guard Self.isWellFormed(token) else { return "INVALID_ARGUMENT" }
        guard let record = tokens[token] else { return liveInstallation(token, project: project) ? nil : "NOT_FOUND" }
        guard !record.deleted else { return "NOT_FOUND" }
        guard record.project == project else { return "INVALID_ARGUMENT" }
        return nil
    }

    /// Whether `id` is an installation of `project` that is not deleted.
    private func liveInstallation(_ id: String, project: String) -> Bool {
        guard let installation = installations[id] else { return false }
        return !installation.deleted && installation.project == project
    }

    /// The index of `id`'s registration record. A FID used as a registration for the first time
    /// gets one, which holds its subscriptions; deleting the installation forgets them with it.
    private mutating func registration(_ id: String, project: String) -> [String: Token].Index? {
        if let index = tokens.index(forKey: id) { return index }
        guard liveInstallation(id, project: project) else { return nil }
        tokens[id] = Token(project: project, application: "", platform: "ANDROID")
        return tokens.index(forKey: id)
    }

    /// Whether `token` holds a subscription to `topic`.
    func isSubscribed(_ token: String, to topic: String) -> Bool {
        guard let id = topicNames.existingID(topic) else { return false }
        return tokens[token]?.subscriptions.date(of: id) != nil
    }

    /// The names of the topics `record` is subscribed to, sorted.
    func subscribedTopics(_ record: Token) -> [String] {
        record.subscriptions.entries.map { topicNames.name($0.topic) }.sorted()
    }

    /// The topics `registration` is subscribed to, sorted (nil when it is not usable).
    func topics(of registration: String, project: String) -> [String]? {
        guard problem(with: registration, project: project) == nil else { return nil }
        return tokens[registration].map(subscribedTopics) ?? []
    }

    /// Tokens of `project` subscribed to `topic`, sorted. A scan of every token: the admin API
    /// reads membership rarely, and an index kept for it cost each subscribe a second hash.
    func subscribers(of topic: String, project: String) -> [String] {
        guard let id = topicNames.existingID(topic) else { return [] }
        return tokens.compactMap { $0.value.project == project && $0.value.subscriptions.date(of: id) != nil ? $0.key : nil }.sorted()
    }

    /// `topic` added `today`, as subscriptions hold it: make it once per call of many tokens.
    mutating func subscription(to topic: String, today: String) -> Subscriptions.Entry {
        Subscriptions.Entry(topic: topicNames.id(for: topic), date: dates.id(for: today))
    }

    /// Subscribes; nil on success, else the per-item error name.
    mutating func subscribe(_ token: String, to topic: String, project: String, today: String) -> String? {
        let entry = subscription(to: topic, today: today)
        return subscribe(token, entry, project: project)
    }

    /// Subscribes to `entry`'s topic; nil on success, else the per-item error name. One hash
    /// lookup for a known token, and the record is changed in place (the emulator's hottest path).
    mutating func subscribe(_ token: String, _ entry: Subscriptions.Entry, project: String) -> String? {
        guard Self.isWellFormed(token) else { return "INVALID_ARGUMENT" }
        guard let index = registration(token, project: project) else { return "NOT_FOUND" }
        return tokens.values[index].subscribe(entry, project: project)
    }

    /// Unsubscribes (idempotent); nil on success, else the per-item error name.
    mutating func unsubscribe(_ token: String, from topic: String, project: String) -> String? {
        if let problem = problem(with: token, project: project) { return problem }
        if let id = topicNames.existingID(topic) { tokens[token]?.subscriptions.remove(id) }
        return nil
    }

    func info(_ token: String, project: String, projectNumber: String, details: Bool) -> InstanceInfo? {
        guard problem(with: token, project: project) == nil, let record = tokens[token] else { return nil }
        let rel =
            details
            ? InstanceInfo.Relations(
                topics: Dictionary(
                    uniqueKeysWithValues: record.subscriptions.entries.map {
                        (topicNames.name($0.topic), InstanceInfo.TopicRelation(addDate: dates.name($0.date)))
                    })) : nil
        return InstanceInfo(application: record.application, authorizedEntity: projectNumber, applicationVersion: "1", platform: record.platform, rel: rel)
    }

    mutating func seed(_ request: SeedRequest, project: String) {
        for token in request.tokens where tokens[token] == nil || tokens[token]!.deleted {
            tokens[token] = Token(project: project, application: request.application, platform: request.platform)
        }
        for id in request.installations where installations[id] == nil || installations[id]!.deleted {
            installations[id] = Installation(project: project)
        }
    }

    /// Marks a registration token deleted (its instance was deleted): later calls see NOT_FOUND.
    mutating func forget(_ token: String) {
        guard let index = tokens.index(forKey: token) else { return }
        tokens.values[index].subscriptions = Subscriptions()
        tokens.values[index].deleted = true
    }

    // MARK: Installations

    /// §3: 200 deleted, 404 never known, 409 already deleted, 400 malformed, 403 other project.
    mutating func deleteInstallation(_ id: String, project: String) -> Int {
        guard Self.isWellFormedInstallation(id) else { return 400 }
        if tokens[id] != nil, tokens[id]!.project == project, !tokens[id]!.deleted {
            forget(id)  // an instance id that is also a token: its data goes too
            installations[id] = Installation(project: project, deleted: true)
            return 200
        }
        guard let record = installations[id] else { return 404 }
        guard record.project == project else { return 403 }
        if record.deleted { return 409 }
        installations[id]!.deleted = true
        return 200
    }

    // MARK: APNs imports

    /// §2.4 for one APNs token: the same token of the same app and environment always maps to
    /// the same registration token, across restarts too.
    mutating func importToken(_ apnsToken: String, application: String, sandbox: Bool, project: String) -> ImportResponse.Entry {
        let digits = apnsToken.utf8
        let hex = digits.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x46).contains($0) || (0x61...0x66).contains($0) }
        guard digits.count >= 32, digits.count % 2 == 0, hex else {
            return ImportResponse.Entry(apnsToken: apnsToken, status: "Invalid APNs token")
        }
        let key = "\(application)|\(sandbox)|\(apnsToken.lowercased())"
        let registration = imports[key] ?? Self.registrationToken(for: key)
        imports[key] = registration
        if tokens[registration] == nil || tokens[registration]!.deleted {
            tokens[registration] = Token(project: project, application: application, platform: "IOS")
        }
        return ImportResponse.Entry(apnsToken: apnsToken, status: "OK", registrationToken: registration)
    }

    static func registrationToken(for key: String) -> String {
        let a = fnv1a(key, basis: 0xcbf2_9ce4_8422_2325)
        let b = fnv1a(key, basis: 0x8422_2325_cbf2_9ce4)
        let c = fnv1a(key + "#", basis: a)
        return hex(a & 0xFFF_FFFF_FFFF, digits: 11) + ":APA91b" + hex(b, digits: 16) + hex(c, digits: 16)
    }

    /// `value` as `digits` lowercase hex digits, zero-padded (as `%0Nllx` writes it).
    private static func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    private static func fnv1a(_ text: String, basis: UInt64) -> UInt64 {
        var hash = basis
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return hash
    }

    /// Registration tokens: 1…4,096 characters of `[A-Za-z0-9_:.-]`.
    ///
    /// Checked over the string's contiguous bytes: walking its `utf8` view byte by byte was a
    /// quarter of the emulator's CPU in `bench worker --shapes topics-1000` (every item of every
    /// batch is checked), and the emulator shares the machine with the worker it measures.
    static func isWellFormed(_ token: String) -> Bool {
        var token = token
        return token.withUTF8 { bytes in
            guard !bytes.isEmpty, bytes.count <= 4096 else { return false }
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "-"), UInt8(ascii: "."):
                    continue
                default: return false
                }
            }
            return true
        }
    }

    /// FIDs are 22 characters and legacy instance ids 11 or more, of the token characters above.
    static func isWellFormedInstallation(_ id: String) -> Bool {
        id.utf8.count >= 11 && isWellFormed(id)
    }
}
