import Foundation

/// One item's final state inside a request: its answer, the attempts it took (earlier records'
/// included), the last whole-call failure it saw, and when it became final.
struct ItemFinal: Sendable {
    var answer: ItemAnswer
    var attempts: Int
    var lastError: String?
    var at: Date
}
