/// A registration token's topics, each with the date it was first added, as ids of the state's
/// `NameTable`s: one array of 8-byte entries sorted by topic id. A token of a few dozen topics
/// costs one small allocation, where a dictionary of names and dates cost a table of strings:
/// the emulator holds every subscription of a migration it is sent, and that footprint was its
/// batchAdd cost (cache misses), which a benchmark pays beside the worker on shared cores.
struct Subscriptions {
    /// One subscription: the topic's id and the id of the date it was first added.
    struct Entry: Equatable {
        var topic: UInt32
        var date: UInt32
    }

    /// The subscriptions, by ascending topic id.
    private(set) var entries: [Entry] = []

    /// How many topics.
    var count: Int { entries.count }

    /// The date id `topic` was first added on; nil when it is not subscribed.
    func date(of topic: UInt32) -> UInt32? {
        let index = position(of: topic)
        return index < entries.count && entries[index].topic == topic ? entries[index].date : nil
    }

    /// Adds `entry` unless its topic is there already (a repeat keeps its first date). False only
    /// when the topic is new and `limit` topics are held: nothing is added then.
    mutating func add(_ entry: Entry, limit: Int) -> Bool {
        let index = position(of: entry.topic)
        if index < entries.count, entries[index].topic == entry.topic { return true }
        guard entries.count < limit else { return false }
        entries.insert(entry, at: index)
        return true
    }

    /// Removes `topic`, if subscribed.
    mutating func remove(_ topic: UInt32) {
        let index = position(of: topic)
        if index < entries.count, entries[index].topic == topic { entries.remove(at: index) }
    }

    /// The index of the first entry whose topic id is not below `topic`.
    private func position(of topic: UInt32) -> Int {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].topic < topic { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
