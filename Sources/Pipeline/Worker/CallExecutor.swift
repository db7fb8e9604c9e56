import InstanceAPI
import WireJSON

/// Makes one attempt of a planned call with the backend client, and nothing else: no retries, no
/// pacing. The I/O adapter between the pipeline and `InstanceAPIClient`: which API an op calls and
/// how many items a call carries are the op's (`RequestOp.api(on:)`, `RequestOp.itemsPerCall(on:)`),
/// and a call comes with its API (`CallJob.api`); how each API's call is made for an op is here,
/// and only here.
struct CallExecutor: Sendable {
    /// The client.
    let client: InstanceAPIClient

    /// One attempt of `op` on `target` for `items` (at most `op.itemsPerCall(on:)` of the backend
    /// `api` belongs to), calling `api` (`op.api(on:)`). `isRetry` says an earlier attempt may have
    /// taken effect unseen (its answer was lost): a retried `groups.remove` whose group is not
    /// found then ends `ALREADY_ABSENT`, not `NOT_FOUND`, since removing what the earlier attempt
    /// removed is success, but only when the group's name is gone too: a key not found while a
    /// group of that name exists removed nothing (`NOT_FOUND`), and when the name cannot be
    /// looked up, the call fails with the lookup's error, to go again.
    func perform(_ op: RequestOp, calling api: BackendAPI, target: RequestTarget, items: PackedStrings, isRetry: Bool = false) async -> CallAnswer {
        let answer = await attempt(op, calling: api, target: target, items: items)
        if isRetry, op == .groupsRemove, case .group(let name, let key) = target, case .items(let answers) = answer,
            answers.runs.contains(where: { $0.value.result.code == .notFound })
        {
            // A key not found now means the earlier attempt emptied the group only if the group
            // is gone by its name too. A group of that name (any key it answers is valid, §4)
            // that the key is not one of: the request's key was stale (the group made again), or
            // the key just looked up was refused; either way nothing was removed, and the members
            // may still be in it. (When the attempt's own lookup found no group, this one says so
            // again.)
            do throws(InstanceAPIError) {
                switch try await client.groupKey(name: name) {
                case .failure(let result) where result.code == .notFound: break
                case .success:
                    let stale = ItemAnswer(
                        ItemResult(
                            .notFound,
                            message: key.map { "notification_key \($0) is not group \(name)'s: nothing was removed" }
                                ?? "group \(name) exists, but its key was not found: nothing was removed"))
                    return .items(answers.mapRuns { $0.result.code == .notFound ? stale : $0 })
                case .failure: return answer
                }
            } catch {
                // Whether the group is gone cannot be told now: the call goes again (nothing was changed by this lookup).
                return .failed(error, changeSent: false)
            }
        }
        return Self.read(answer, of: op, isRetry: isRetry)
    }

    /// `answer` to an attempt of `op`, as its items end: on a retry after an attempt that may have
    /// taken effect unseen (`isRetry`), a `groups.remove` member `NOT_FOUND` is `ALREADY_ABSENT`
    /// (removing what the earlier attempt removed is success); anything else as it came.
    static func read(_ answer: CallAnswer, of op: RequestOp, isRetry: Bool) -> CallAnswer {
        guard isRetry, op == .groupsRemove, case .items(let answers) = answer else { return answer }
        return .items(
            answers.mapRuns { answer in
                guard answer.result.code == .notFound else { return answer }
                return ItemAnswer(ItemResult(.alreadyAbsent, message: "not found on a retry: an earlier attempt removed it"), value: answer.value)
            })
    }

    private func attempt(_ op: RequestOp, calling api: BackendAPI, target: RequestTarget, items: PackedStrings) async -> CallAnswer {
        do throws(InstanceAPIError) {
            switch (op, target) {
            case (.topicsSubscribe, .topic(let topic)), (.topicsUnsubscribe, .topic(let topic)):
                return try await topics(calling: api, topic: topic, items: items)
            case (.installationsDelete, _):
                return try await eachItem(items) { id throws(InstanceAPIError) in ItemAnswer(try await client.deleteInstance(id: id)) }
            case (.instancesInfo, .info(let details)):
                return try await eachItem(items) { token throws(InstanceAPIError) in try await info(token, calling: api, details: details) }
            case (.groupsExport, .export(let byKey)):
                return try await eachItem(items) { group throws(InstanceAPIError) in try await export(group, byKey: byKey) }
            case (.apnsImport, .apns(let application, let sandbox)):
                let results = try await client.batchImport(application: application, sandbox: sandbox, apnsTokens: items.strings)
                return .items(RunLengthList(results.lazy.map { ItemAnswer($0.result, value: $0.registrationToken) }))
            case (.groupsCreate, .group(let name, _)):
                return whole(items, try await createOrJoin(name: name, tokens: items.strings))
            case (.groupsAdd, .group(let name, let key)), (.groupsRemove, .group(let name, let key)):
                let resolved: String
                if let key {
                    resolved = key
                } else {
                    // The key's lookup failing leaves the change unsent: it cannot have been carried out.
                    let lookup: ItemOutcome<String>
                    do throws(InstanceAPIError) { lookup = try await client.groupKey(name: name) } catch { return .failed(error, changeSent: false) }
                    switch lookup {
                    case .success(let found): resolved = found
                    case .failure(let result): return whole(items, .failure(result))
                    }
                }
                let outcome =
                    op == .groupsAdd
                    ? try await client.addToGroup(name: name, key: resolved, tokens: items.strings)
                    : try await client.removeFromGroup(name: name, key: resolved, tokens: items.strings)
                return whole(items, outcome)
            default:
                return .failed(.invalidArgument(field: "target", value: "\(target)", reason: "does not fit op \(op.rawValue)"))
            }
        } catch {
            return .failed(error)
        }
    }

    /// A topic change on `api`: one batch call of up to 1,000 tokens on the Instance ID API, a
    /// call per token on FCM HTTP v1.
    private func topics(calling api: BackendAPI, topic: String, items: PackedStrings) async throws(InstanceAPIError) -> CallAnswer {
        switch api {
        case .batchAdd:
            return .items(try await client.batchAdd(topic: topic, tokens: items).mapRuns { ItemAnswer($0) })
        case .batchRemove:
            return .items(try await client.batchRemove(topic: topic, tokens: items).mapRuns { ItemAnswer($0) })
        case .fcmSubscribe:
            return try await eachItem(items) { token throws(InstanceAPIError) in ItemAnswer(try await client.fcmSubscribe(token: token, topic: topic)) }
        case .fcmUnsubscribe:
            return try await eachItem(items) { token throws(InstanceAPIError) in ItemAnswer(try await client.fcmUnsubscribe(token: token, topic: topic)) }
        default:
            return .failed(.invalidArgument(field: "api", value: api.rawValue, reason: "is not an API of topic changes"))
        }
    }

    /// One registration's info: with `details`, its topics, from `iid/info?details=true` on the
    /// Instance ID API (`api` `.instanceInfo`) or from every page of the FCM v1 list call (the API
    /// that replaces it).
    private func info(_ token: String, calling api: BackendAPI, details: Bool) async throws(InstanceAPIError) -> ItemAnswer {
        switch api {
        case .instanceInfo:
            let outcome = try await client.instanceInfo(token: token, details: details)
            let topics = outcome.value?.rel?.topics?.keys.sorted() ?? []
            return ItemAnswer(outcome.result, list: details && outcome.value != nil ? topics : nil)
        case .fcmListTopics:
            let outcome = try await client.fcmTopics(registration: token)
            return ItemAnswer(outcome.result, list: details ? outcome.value : nil)
        default:
            throw .invalidArgument(field: "api", value: api.rawValue, reason: "is not an API of instances.info")
        }
    }

    /// One device group's members, by name (its key looked up first) or by key.
    private func export(_ group: String, byKey: Bool) async throws(InstanceAPIError) -> ItemAnswer {
        var key = group
        if !byKey {
            switch try await client.groupKey(name: group) {
            case .success(let found): key = found
            case .failure(let result): return ItemAnswer(result)
            }
        }
        let members = try await client.groupMembers(key: key)
        return ItemAnswer(members.result, value: key, list: members.value)
    }

    /// `groups.create` made idempotent: a name that already exists resolves its key and the
    /// members are added to it, so a repeated or split create ends with the same group.
    private func createOrJoin(name: String, tokens: [String]) async throws(InstanceAPIError) -> ItemOutcome<String> {
        let created = try await client.createGroup(name: name, tokens: tokens)
        guard case .failure(let result) = created, result.code == .alreadyExists else { return created }
        guard case .success(let key) = try await client.groupKey(name: name) else { return created }
        switch try await client.addToGroup(name: name, key: key, tokens: tokens) {
        case .success: return .success(key)
        case .failure(let failure): return .failure(failure)
        }
    }

    /// Single-item APIs: one call per item, in order (calls of these ops carry one item).
    private func eachItem(
        _ items: PackedStrings, _ call: (String) async throws(InstanceAPIError) -> ItemAnswer
    ) async throws(InstanceAPIError) -> CallAnswer {
        var answers: [ItemAnswer] = []
        answers.reserveCapacity(items.count)
        for item in items { answers.append(try await call(item)) }
        return .items(RunLengthList(answers))
    }

    /// Device-group calls answer for all their members at once.
    private func whole(_ items: PackedStrings, _ outcome: ItemOutcome<String>) -> CallAnswer {
        .items(RunLengthList(repeating: ItemAnswer(outcome.result, value: outcome.value), count: items.count))
    }
}
