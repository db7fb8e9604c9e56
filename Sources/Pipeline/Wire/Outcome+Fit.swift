import InstanceAPI

extension Outcome {
    /// Whether this outcome can be the outcome of `request`, by what it says of the request's
    /// items: the same id; the same op (a rejected record's outcome may name none); a `receipt`,
    /// when it has one, naming each item in order; and, unless it is `rejected` (which says
    /// nothing of the items, and names only a `subject` of its target), the same target (each
    /// value by its bytes, or its first `maxCompactTargetBytes` in an outcome without its item
    /// lists), `counts` adding up to the number of items and each failed item's index within them
    /// and naming the item at that index.
    ///
    /// False means `request` did not produce this outcome, so none of the outcome's codes may be
    /// given to its items. True means it may have: another record of the same id may fit too, and
    /// only when all that fit hold the same items are the outcome's items known. Ids and items are
    /// compared by their bytes (`ExactText`), as the backend tells them apart.
    public func fits(_ request: PipelineRequest) -> Bool {
        guard ExactText(requestID) == ExactText(request.id), op.map({ $0 == request.op }) ?? true else { return false }
        let items = request.items
        if let receipt, receipt.count != items.count || !zip(receipt, items).allSatisfy({ ExactText($0.item) == ExactText($1) }) { return false }
        guard status != .rejected else { return true }
        guard Self.sameTarget(target, request.target.outcomeFields) else { return false }
        guard counts.values.reduce(0, +) == items.count else { return false }
        return failedItems.allSatisfy { items.indices.contains($0.index) && ExactText(items[$0.index]) == ExactText($0.item) }
    }

    /// Whether an outcome's `target` is a request's `outcomeFields`: the same names, each value
    /// the same bytes or, cut as an outcome without its item lists cuts it, its first bytes.
    static func sameTarget(_ told: [String: String], _ fields: [String: String]) -> Bool {
        guard told.count == fields.count else { return false }
        return fields.allSatisfy { name, value in
            guard let said = told[name] else { return false }
            return ExactText(said) == ExactText(value)
                || (value.utf8.count > maxCompactTargetBytes && ExactText(said) == ExactText(value.utf8Prefix(maxBytes: maxCompactTargetBytes)))
        }
    }
}
