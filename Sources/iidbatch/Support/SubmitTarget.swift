import ArgumentParser
import InstanceAPI
import Pipeline

/// What `submit` needs to know per op: its target from the flags, default record size and topic.
enum SubmitTarget {
    /// The op's target from the command-line flags, naming the missing or wrong one.
    static func target(
        for op: RequestOp, topic: String?, subject: String?, application: String?, sandbox: Bool, group: String?,
        notificationKey: String?, details: Bool, byKey: Bool = false
    ) throws -> RequestTarget {
        switch op {
        case .topicsSubscribe, .topicsUnsubscribe:
            guard let topic else { throw ValidationError("--topic is required for \(op.rawValue)") }
            do { return .topic(try APILimits.topicName(topic)) } catch {
                throw ValidationError("--topic: '\(topic)' is not a topic name: it must match \(APILimits.topicNameRule)")
            }
        case .installationsDelete:
            return .subject(subject)
        case .apnsImport:
            guard let application else { throw ValidationError("--application (the iOS bundle id) is required for apns.import") }
            return .apns(application: application, sandbox: sandbox)
        case .groupsCreate, .groupsAdd, .groupsRemove:
            guard let group else { throw ValidationError("--group (the notification key name) is required for \(op.rawValue)") }
            return .group(name: group, key: notificationKey)
        case .instancesInfo:
            return .info(details: details)
        case .groupsExport:
            return .export(byKey: byKey)
        }
    }

    /// Items per record when `--record-size` is not given: one full Instance ID call's worth for
    /// topic and group ops, 50 group exports (each may list a full group of the longest tokens,
    /// so 100 could pass the default `max-outcome-bytes` of 1,000,000: `OutcomeSizeBound`), 100
    /// for the others.
    static func defaultRecordSize(_ op: RequestOp) -> Int {
        switch op {
        case .topicsSubscribe, .topicsUnsubscribe, .groupsCreate, .groupsAdd, .groupsRemove: op.mostItemsPerCall
        case .groupsExport: 50
        case .apnsImport, .installationsDelete, .instancesInfo: 100
        }
    }
}
