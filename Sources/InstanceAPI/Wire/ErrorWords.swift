/// The words of an API error's text read for what they say about one item: whether they say it
/// is gone, and whether they are about another thing (a project, a method). The parts of the
/// text that hold the item (`Instance ID "fid":`, a resource name `projects/p/installations/fid`)
/// are set aside first, so that the item's own bytes or its path never read as another thing.
struct ErrorWords {
    /// The text's words in lower case, letters only, without the parts that hold the item.
    let words: [Substring]
    /// The text in lower case, without the parts that hold the item, spaces between.
    let rest: String
    /// Whether the text held the item's bytes at all.
    let holdsItem: Bool

    /// `text` read for `item`.
    init(_ text: String, item: String) {
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
        let others = parts.filter { item.isEmpty || $0.utf8.firstRange(of: item.utf8) == nil }
        holdsItem = others.count < parts.count
        rest = others.joined(separator: " ").lowercased()
        words = rest.split { !$0.isLetter }
    }

    /// Phrases of a legacy string error that say an item is not found (a 404): the API's `failed
    /// to find the instance ID`, and the code's own name.
    static let notFound = ["failed to find", "not found", "not_found", "not exist", "n't exist", "no such"]

    /// Phrases of a legacy string error that say an item is gone already (a 409): the API's
    /// `already deleted`, and the code's own name.
    static let alreadyGone = ["already deleted", "already been deleted", "already_exists"]

    /// Words that name a thing other than an installation or instance: a project, an app, a
    /// sender, a service or API, a method, a topic. Matched as a word or its start (`projects`),
    /// the short ones (`app`, `api`) as whole words or plurals.
    static let otherThings = ["project", "application", "sender", "service", "method", "topic", "bucket", "database"]
    static let otherShortThings: Set<Substring> = ["app", "apps", "api", "apis"]

    /// Words a generic `NOT_FOUND` uses for the thing asked for: `Requested entity was not found.`
    static let theThing = ["entity", "instance", "installation", "resource"]

    /// Whether the rest says one of `phrases`.
    func says(_ phrases: [String]) -> Bool { phrases.contains { rest.contains($0) } }

    /// Whether the rest names a thing other than the item (`otherThings`).
    var namesAnotherThing: Bool {
        words.contains { word in Self.otherShortThings.contains(word) || Self.otherThings.contains { word.hasPrefix($0) } }
    }

    /// Whether the rest names the kind of thing asked for (`theThing`), as a word or its start.
    var namesTheThing: Bool { words.contains { word in Self.theThing.contains { word.hasPrefix($0) } } }
}
