/// The one rule for order between requests, used by the planner (which never packs across a
/// change of op on one key) and the call queue (which holds a key while its calls run).
///
/// Work on the same key takes effect in arrival order: topic changes by topic name, and every op
/// on a device group by the group's name. Deletions, imports and lookups are independent of one
/// another (no key): each is idempotent and commutes with the others. On one key, calls of the
/// same topic op and topic run side by side, since their items commute; anything else waits until
/// the key is free, retries included.
enum OrderingRule {
    /// The ordering key of `op` on `target`, or nil for independent work.
    static func key(op: RequestOp, target: RequestTarget) -> String? {
        isOrdered(op) ? target.batchKey : nil
    }

    /// Whether work of `op` has an ordering key.
    static func isOrdered(_ op: RequestOp) -> Bool {
        switch op {
        case .topicsSubscribe, .topicsUnsubscribe, .groupsCreate, .groupsAdd, .groupsRemove: true
        case .installationsDelete, .apnsImport, .instancesInfo, .groupsExport: false
        }
    }

    /// Whether a call of `op` on `target` may start while calls of `heldOp` on `heldTarget`
    /// (same key) are still running or waiting to retry.
    static func mayRunBeside(op: RequestOp, target: RequestTarget, heldOp: RequestOp, heldTarget: RequestTarget) -> Bool {
        let commutes = op == .topicsSubscribe || op == .topicsUnsubscribe
        return commutes && heldOp == op && heldTarget == target
    }
}
