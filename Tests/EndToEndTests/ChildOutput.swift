import Foundation

/// What a child process has written to its output pipe, and whether it has ended.
struct ChildOutput: Sendable {
    /// The output so far, decoded as UTF-8.
    private(set) var text = ""
    /// The bytes of a character split across two reads, kept until its end arrives.
    private var partial: [UInt8] = []
    /// Whether the pipe reached its end.
    private(set) var closed = false
    /// The exit status, once the process exited.
    var status: Int32?

    /// Whether the process exited and all it wrote was read.
    var isComplete: Bool { status != nil && closed }

    /// Takes one read from the pipe; an empty one is its end.
    mutating func read(_ data: Data) {
        guard !data.isEmpty else {
            text += String(decoding: partial, as: UTF8.self)
            partial = []
            closed = true
            return
        }
        partial.append(contentsOf: data)
        let whole = partial.count - Self.unfinishedTail(partial)
        text += String(decoding: partial[..<whole], as: UTF8.self)
        partial.removeFirst(whole)
    }

    /// The process ended with `status` and its output was read to the end; `note` (a failure of
    /// the reading side's own) is added to the text.
    mutating func ended(_ status: Int32, note: String = "") {
        read(Data())
        text += note
        self.status = status
    }

    /// How many bytes at the end of `bytes` begin a UTF-8 sequence that is not complete yet.
    private static func unfinishedTail(_ bytes: [UInt8]) -> Int {
        for back in 1...min(3, bytes.count) {
            let byte = bytes[bytes.count - back]
            if byte & 0xC0 == 0x80 { continue }  // a continuation byte: look further back
            let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
            return length > back ? back : 0
        }
        return 0
    }
}
