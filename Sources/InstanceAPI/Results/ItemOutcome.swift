/// The answer of a single-item call: a value, or the item's result code.
public enum ItemOutcome<Value: Sendable>: Sendable {
    /// The call succeeded with `value`.
    case success(Value)
    /// The item failed with this result.
    case failure(ItemResult)

    /// The item's result: `OK` on success.
    public var result: ItemResult {
        switch self {
        case .success: .ok
        case .failure(let result): result
        }
    }

    /// The value, on success.
    public var value: Value? {
        if case .success(let value) = self { return value }
        return nil
    }
}

extension ItemOutcome: Equatable where Value: Equatable {}
