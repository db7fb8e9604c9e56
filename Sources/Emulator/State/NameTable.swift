/// Names numbered once each, so that a name many records share is kept once and a record holds a
/// 4-byte id for it: the emulator's topic names and subscription dates. Ids count up from 0 in the
/// order names first come; a name keeps its id for the table's life (the emulator lives for a
/// test or a demo, and the names it sees are few).
struct NameTable {
    private var ids: [String: UInt32] = [:]
    private var names: [String] = []

    /// The id of `name`, numbered now if it has none yet.
    mutating func id(for name: String) -> UInt32 {
        if let id = ids[name] { return id }
        let id = UInt32(names.count)
        names.append(name)
        ids[name] = id
        return id
    }

    /// The id of `name`; nil when it was never numbered.
    func existingID(_ name: String) -> UInt32? { ids[name] }

    /// The name numbered `id` (an id this table gave).
    func name(_ id: UInt32) -> String { names[Int(id)] }
}
