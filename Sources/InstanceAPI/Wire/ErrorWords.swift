/// The words of an API error's text read for what they say about one item: whether they say it
/// is gone, and whether they are about another thing (a project, a method). The item's own
/// bytes, where they stand as a word of their own (not inside another: `fid` is not in
/// `fid-abc`), are set aside first, and with them a Google resource name that ends in the item
/// (`projects/p/installations/fid`), so that neither reads as another thing. Words are runs of
/// letters: any other character (punctuation, any blank) separates them.
struct ErrorWords {
    /// The text in lower case, the item and its resource name set aside (as spaces).
    let rest: String
    /// The rest as written, in its own case: what tells a legacy Instance ID (`abcDEFghiJK`) from
    /// a word.
    private let restAsWritten: [UInt8]
    /// The rest's words, letters only.
    let words: [Substring]
    /// Whether the text names the item as a word of its own.
    let holdsItem: Bool
    /// Whether the item stands in a path, URL or query of the text (after `/`, `\`, `=` or `;`),
    /// other than a resource name `projects/<p>/installations/<item>`: a request's path echoed
    /// (`The requested URL /v1/project/p/instanceId/fid was not found`) says nothing of the item.
    let quotesItemInPath: Bool

    /// `text` read for `item`.
    init(_ text: String, item: String) {
        var bytes = Array(text.utf8)
        let needle = Array(item.utf8)
        var holds = false
        var quoted = false
        func isWordByte(_ index: Int) -> Bool { bytes.indices.contains(index) && Self.isIDByte(bytes[index]) }
        var start = 0
        while !needle.isEmpty, start + needle.count <= bytes.count {
            guard bytes[start..<start + needle.count].elementsEqual(needle), !isWordByte(start - 1), !isWordByte(start + needle.count) else {
                start += 1
                continue
            }
            holds = true
            var from = start
            if start > 0, FCMErrorBody.pathBytes.contains(bytes[start - 1]) {
                if let name = Self.resourceNameStart(in: bytes, before: start) { from = name } else { quoted = true }
            }
            for index in from..<start + needle.count { bytes[index] = UInt8(ascii: " ") }
            start += needle.count
        }
        holdsItem = holds
        quotesItemInPath = quoted
        restAsWritten = bytes
        rest = String(decoding: bytes, as: UTF8.self).lowercased()
        words = rest.split { !$0.isLetter }
    }

    /// Whether `byte` can be part of an id or token as a word of its own: an ASCII letter or
    /// digit, `-`, `_`, or any byte of a non-ASCII character.
    static func isIDByte(_ byte: UInt8) -> Bool {
        byte >= 0x80 || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
    }

    /// Where a resource name `projects/<p>/installations/` starts that ends just before `end`
    /// (at the start of the text or after a blank, a quote or a colon), else nil.
    private static func resourceNameStart(in bytes: [UInt8], before end: Int) -> Int? {
        let collection = Array("/installations/".utf8)
        guard end >= collection.count, bytes[(end - collection.count)..<end].elementsEqual(collection) else { return nil }
        var index = end - collection.count
        // The project: one segment, no blank.
        var segment = index
        while segment > 0, bytes[segment - 1] != UInt8(ascii: "/"), bytes[segment - 1] > 0x20 { segment -= 1 }
        guard segment < index, segment >= 1, bytes[segment - 1] == UInt8(ascii: "/") else { return nil }
        index = segment - 1
        let projects = Array("projects".utf8)
        guard index >= projects.count, bytes[(index - projects.count)..<index].elementsEqual(projects) else { return nil }
        let nameStart = index - projects.count
        guard nameStart == 0 || [UInt8(ascii: " "), UInt8(ascii: "\""), UInt8(ascii: ":"), UInt8(ascii: "'")].contains(bytes[nameStart - 1]) else {
            return nil
        }
        return nameStart
    }

    /// Phrases of a legacy string error that say an item is not found (a 404): the API's `failed
    /// to find the instance ID`, its `No information found about this instance id.`, and the
    /// code's own name.
    static let notFound = ["failed to find", "not found", "not_found", "not exist", "n't exist", "no such", "no information found"]

    /// Phrases of a legacy string error that say an item is gone already (a 409): the API's
    /// `already deleted`, and the code's own name.
    static let alreadyGone = ["already deleted", "already been deleted", "already_exists"]

    /// Words that name a thing other than an installation or instance: a project (or the calling
    /// one, Google's `consumer`), an app, a sender, a service or API, a method, a topic, a path or
    /// URL. Matched as a word or its start
    /// (`projects`), the short ones as whole words or plurals.
    static let otherThings = ["project", "application", "sender", "service", "method", "topic", "bucket", "database", "route", "path", "consumer"]
    static let otherShortThings: Set<Substring> = ["app", "apps", "api", "apis", "url", "urls", "uri"]

    /// Words a generic `NOT_FOUND` uses for the thing asked for: `Requested entity was not found.`
    static let theThing = ["entity", "instance", "installation", "resource"]

    /// Whether the rest says one of `phrases`.
    func says(_ phrases: [String]) -> Bool { phrases.contains { rest.contains($0) } }

    /// Whether the rest names a thing other than the item (`otherThings`) or another id (a run of
    /// 8 or more letters, digits, `-` and `_` holding a digit or `-`: `fid-abcdef` beside the item
    /// `fid-abc`; a code's name, `NOT_FOUND`, is none; a run of more than `longestWord` letters
    /// and `_`: a FID of those alone; or a run of `legacyIDLength` or more holding a capital right
    /// after a small letter, as written: a legacy Instance ID of letters alone, `abcDEFghiJK`,
    /// never a word of Google's errors), or the item stands in a quoted path.
    var namesAnotherThing: Bool {
        quotesItemInPath || namesAnotherID
            || words.contains { word in Self.otherShortThings.contains(word) || Self.otherThings.contains { word.hasPrefix($0) } }
    }

    /// Whether the rest holds a run that reads as an id (`namesAnotherThing`).
    private var namesAnotherID: Bool {
        var run = 0
        var marked = false
        var camel = false
        var previousSmall = false
        for byte in restAsWritten {
            let small = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            let capital = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            let mark = (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
            if small || capital || mark || byte == UInt8(ascii: "_") {
                run += 1
                marked = marked || mark
                camel = camel || (capital && previousSmall)
                if run >= 8, marked || run > Self.longestWord || (camel && run >= Self.legacyIDLength) { return true }
            } else {
                run = 0
                marked = false
                camel = false
            }
            previousSmall = small
        }
        return false
    }

    /// The length of a legacy Instance ID (11 base64url characters).
    static let legacyIDLength = 11

    /// The longest run of letters and `_` read as a word, not an id: longer than the words of
    /// Google's errors (`NOT_FOUND`, `unauthenticated`), shorter than a FID (22).
    static let longestWord = 15

    /// Whether `text` names a project (or the calling one, Google's `consumer`) as a word or its
    /// start (`projects`), in any case: what says an error is about the caller, not an item.
    static func namesProjectOrConsumer(_ text: String) -> Bool {
        text.lowercased().split { !$0.isLetter }.contains { $0.hasPrefix("project") || $0.hasPrefix("consumer") }
    }

    /// `text` without each FCM registration's resource name in it
    /// (`projects/<p>/registrations/<token>`, and `/topicSubscriptions/<topic>` after it), which
    /// names the call's own project, token and topic; read within its first
    /// `FCMErrorBody.searchedBytes`.
    static func withoutRegistrationNames(_ text: String) -> String {
        var rest = Substring(String(decoding: text.utf8.prefix(FCMErrorBody.searchedBytes), as: UTF8.self))
        var kept = ""
        /// `text` after its first segment (up to a `/`, a blank or a quote).
        func afterSegment(_ text: Substring) -> Substring {
            text[(text.firstIndex { $0 == "/" || $0.isWhitespace || $0 == "\"" || $0 == "'" } ?? text.endIndex)...]
        }
        while let start = rest.range(of: "projects/") {
            let afterProjects = rest[start.upperBound...]
            let registrations = afterSegment(afterProjects)
            guard registrations.startIndex != afterProjects.startIndex, registrations.hasPrefix("/registrations/") else {
                kept += rest[..<start.upperBound]
                rest = afterProjects
                continue
            }
            kept += rest[..<start.lowerBound] + " "
            rest = afterSegment(registrations.dropFirst("/registrations/".count))
            if rest.hasPrefix("/topicSubscriptions/") { rest = afterSegment(rest.dropFirst("/topicSubscriptions/".count)) }
        }
        return kept + rest
    }

    /// Whether the rest names the kind of thing asked for (`theThing`), as a word or its start.
    var namesTheThing: Bool { words.contains { word in Self.theThing.contains { word.hasPrefix($0) } } }
}
