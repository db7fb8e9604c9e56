/// One member of an object read by `JSONValue.parseMembers(bytes:)`: an array of strings kept
/// packed (a request's items), or any other value.
package enum JSONMember: Sendable, Hashable {
    /// An array whose elements are all strings.
    case strings(PackedStrings)
    /// Any other value.
    case value(JSONValue)

    /// The member as a `JSONValue` (an array of strings is built element by element).
    package var value: JSONValue {
        switch self {
        case .strings(let strings): .array(strings.map(JSONValue.string))
        case .value(let value): value
        }
    }
}
