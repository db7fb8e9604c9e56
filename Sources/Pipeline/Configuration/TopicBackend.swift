/// Which API a topic pipeline calls; records and outcomes are the same either way.
public enum TopicBackend: String, Sendable, Hashable, CaseIterable {
    /// Instance ID batchAdd / batchRemove (§2.3): up to 1,000 tokens per call.
    case iidBatch = "iid-batch"
    /// FCM HTTP v1 per-token subscribe / unsubscribe (§2.6): one call per token.
    case fcmV1 = "fcm-v1"
}
