import InstanceAPI

/// FCM device groups (§4): a name maps to up to 20 members and to notification keys, each of
/// which is valid for the group.
struct DeviceGroups {
    struct Group {
        var keys: [String]
        var members: [String]
    }

    /// A refused group operation: the 400 body text and nothing else.
    struct Refusal: Error {
        var message: String
        static let exists = Refusal(message: "notification_key already exists")
        static let notFound = Refusal(message: "notification_key not found")
        static let full = Refusal(message: "maximum number of members exceeded")
        static let badToken = Refusal(message: "invalid registration id")
    }

    /// `project|name` → group.
    private(set) var groups: [String: Group] = [:]
    /// Notification key → `project|name`.
    private var keys: [String: String] = [:]
    private var generator: SplitMix64

    init(seed: UInt64 = 7) { generator = SplitMix64(seed: seed) }

    mutating func create(name: String, members: [String], project: String) -> Result<String, Refusal> {
        let id = project + "|" + name
        guard groups[id] == nil else { return .failure(.exists) }
        let unique = Self.unique(members)
        guard unique.allSatisfy(EmulatorState.isWellFormed) else { return .failure(.badToken) }
        guard !unique.isEmpty else { return .failure(.badToken) }
        guard unique.count <= APILimits.groupMembers else { return .failure(.full) }
        let key = newKey()
        groups[id] = Group(keys: [key], members: unique)
        keys[key] = id
        return .success(key)
    }

    mutating func add(name: String, key: String, members: [String], project: String) -> Result<String, Refusal> {
        let id = project + "|" + name
        guard keys[key] == id, var group = groups[id] else { return .failure(.notFound) }
        guard members.allSatisfy(EmulatorState.isWellFormed) else { return .failure(.badToken) }
        let merged = Self.unique(group.members + members)
        guard merged.count <= APILimits.groupMembers else { return .failure(.full) }
        group.members = merged
        groups[id] = group
        return .success(group.keys[0])
    }

    mutating func remove(name: String, key: String, members: [String], project: String) -> Result<String, Refusal> {
        let id = project + "|" + name
        guard keys[key] == id, var group = groups[id] else { return .failure(.notFound) }
        let removing = Set(members)
        group.members.removeAll { removing.contains($0) }
        if group.members.isEmpty {
            for key in group.keys { keys[key] = nil }
            groups[id] = nil  // a group without members ceases to exist
        } else {
            groups[id] = group
        }
        return .success(group.keys[0])
    }

    /// A new-looking key for the group; every key handed out stays valid.
    mutating func retrieve(name: String, project: String) -> Result<String, Refusal> {
        let id = project + "|" + name
        guard groups[id] != nil else { return .failure(.notFound) }
        let key = newKey()
        groups[id]!.keys.append(key)
        keys[key] = id
        return .success(key)
    }

    /// The members of the group `key` belongs to, if it exists in `project`.
    func members(key: String, project: String) -> [String]? {
        guard let id = keys[key], id.hasPrefix(project + "|") else { return nil }
        return groups[id]?.members
    }

    func group(name: String, project: String) -> Group? { groups[project + "|" + name] }

    private mutating func newKey() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        return "APA91b" + String((0..<146).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
    }

    private static func unique(_ members: [String]) -> [String] {
        var seen = Set<String>()
        return members.filter { seen.insert($0).inserted }
    }
}
