import Foundation
import HTTPTypes
import Hummingbird
import InstanceAPI

/// The emulator's HTTP surface on Hummingbird's `Router`: Google's endpoints at Google's paths,
/// `POST /token`, and the admin API under `/emulator/v1/`.
///
/// Every Google endpoint runs behind the same middleware, in this order: statistics (counts every
/// answer, whoever gives it), auth (401 without a valid access token), faults (latency, outages,
/// injected failures, quota) and, for the Instance ID API, the `access_token_auth` header. The
/// handlers in `EmulatorBackend` only do the API's own work.
enum EmulatorRouter {
    /// A router serving `backend`.
    static func make(_ backend: EmulatorBackend) -> Router<EmulatorContext> {
        let router = Router(context: EmulatorContext.self)
        serve(router.group(), .post, "token") { request, _ in backend.auth.tokenEndpoint(request) }
        for path in ["computeMetadata/v1/instance/service-accounts/default/token", "computeMetadata/v1/project/project-id"] {
            serve(router.group(), .get, RouterPath(path)) { request, _ in backend.auth.metadata(request, project: backend.configuration.projectID) }
        }
        adminRoutes(router.group("emulator/v1"), backend)

        func api(_ api: BackendAPI, instanceID: Bool = false) -> RouterGroup<EmulatorContext> {
            var group = router.group()
                .add(middleware: StatisticsMiddleware(api: api, backend: backend))
                .add(middleware: AuthMiddleware(backend: backend))
            if backend.configuration.newProject, ProjectOnboarding.refuses(api) {
                group = group.add(middleware: ProjectOnboarding(api: api, projectNumber: backend.configuration.projectNumber))
            }
            group = group.add(middleware: FaultMiddleware(api: api, faults: backend.faults))
            return instanceID ? group.add(middleware: AccessTokenAuthMiddleware()) : group
        }
        serve(api(.instanceInfo, instanceID: true), .get, "iid/info/:token") { request, context in
            backend.instanceInfo(parameter("token", context), request, project: context.project)
        }
        serve(api(.topicRelation, instanceID: true), .post, "iid/v1/:token/rel/topics/:topic") { request, context in
            backend.relation(parameter("token", context), parameter("topic", context), request, project: context.project)
        }
        serve(api(.batchAdd, instanceID: true), .post, "iid/v1:batchAdd") { request, context in
            backend.topicBatch(.batchAdd, request, project: context.project, throttled: context.throttled)
        }
        serve(api(.batchRemove, instanceID: true), .post, "iid/v1:batchRemove") { request, context in
            backend.topicBatch(.batchRemove, request, project: context.project, throttled: context.throttled)
        }
        serve(api(.batchImport, instanceID: true), .post, "iid/v1:batchImport") { request, context in
            backend.batchImport(request, project: context.project, throttled: context.throttled)
        }
        let subscriptions = "v1/projects/:project/registrations/:token/topicSubscriptions"
        serve(api(.fcmSubscribe), .post, RouterPath(subscriptions)) { request, context in
            backend.fcmTopic(
                .fcmSubscribe, request, pathProject: parameter("project", context), token: parameter("token", context), topic: request.query["topic_name"],
                project: context.project, create: true)
        }
        serve(api(.fcmSubscribe), .patch, RouterPath(subscriptions + "/:topic")) { request, context in
            backend.fcmTopic(
                .fcmSubscribe, request, pathProject: parameter("project", context), token: parameter("token", context), topic: parameter("topic", context),
                project: context.project)
        }
        serve(api(.fcmUnsubscribe), .delete, RouterPath(subscriptions + "/:topic")) { request, context in
            backend.fcmTopic(
                .fcmUnsubscribe, request, pathProject: parameter("project", context), token: parameter("token", context), topic: parameter("topic", context),
                project: context.project)
        }
        serve(api(.fcmListTopics), .get, RouterPath(subscriptions)) { request, context in
            backend.fcmListTopics(request, pathProject: parameter("project", context), registration: parameter("token", context), project: context.project)
        }
        serve(api(.deleteInstance), .delete, "v1/project/:project/instanceId/:id") { _, context in
            backend.deleteInstance(pathProject: parameter("project", context), id: parameter("id", context), project: context.project)
        }
        let groups = api(.deviceGroup)
        for method in [HTTPRequest.Method.get, .post] {
            serve(groups, method, "fcm/notification") { request, context in backend.deviceGroup(request, project: context.project) }
        }
        return router
    }

    /// `/emulator/v1/`: seed state, read it back, change faults, revoke access tokens.
    private static func adminRoutes(_ admin: RouterGroup<EmulatorContext>, _ backend: EmulatorBackend) {
        serve(admin, .post, "seed") { request, _ in
            guard let seed = try? JSONDecoder().decode(SeedRequest.self, from: request.body) else { return .error(400, "body must be a SeedRequest") }
            backend.seed(seed)
            return .json(["tokens": seed.tokens.count, "installations": seed.installations.count])
        }
        serve(admin, .get, "tokens/:token") { _, context in
            let token = parameter("token", context)
            guard let state = backend.tokenState(token) else { return .error(404, "unknown token \(token)") }
            return .json(state)
        }
        serve(admin, .get, "topics/:topic") { _, context in
            let topic = parameter("topic", context)
            return .json(TopicState(topic: topic, tokens: backend.subscribers(of: topic)))
        }
        serve(admin, .get, "installations/:id") { _, context in
            let id = parameter("id", context)
            guard let deleted = backend.installationDeleted(id) else { return .error(404, "unknown installation \(id)") }
            return .json(InstallationState(id: id, deleted: deleted))
        }
        serve(admin, .get, "groups/:name") { _, context in
            let name = parameter("name", context)
            guard let members = backend.groupMembers(name) else { return .error(404, "no group \(name)") }
            return .json(GroupState(name: name, members: members))
        }
        serve(admin, .get, "stats") { _, _ in .json(backend.stats) }
        serve(admin, .get, "faults") { _, _ in .json(backend.faultPlan) }
        serve(admin, .put, "faults") { request, _ in
            guard let plan = try? JSONDecoder().decode(FaultPlan.self, from: request.body) else { return .error(400, "body must be a FaultPlan") }
            do throws(EmulatorError) { try backend.setFaults(plan) } catch { return .error(400, error.description) }
            return .json(plan)
        }
        serve(admin, .post, "revoke-tokens") { _, _ in
            backend.revokeAccessTokens()
            return .json(["revoked": true])
        }
    }

    /// Adds an endpoint whose handler sees an `EmulatorRequest`; what its answer carried is noted
    /// for the statistics middleware.
    private static func serve(
        _ group: RouterGroup<EmulatorContext>, _ method: HTTPRequest.Method, _ path: RouterPath,
        _ handler: @escaping @Sendable (EmulatorRequest, EmulatorContext) async -> EmulatorResponse
    ) {
        group.on(path, method: method) { request, context in
            let answer = await handler(try await EmulatorRequest(request), context)
            context.tally?.note(answer)
            return answer.httpResponse()
        }
    }

    /// A path parameter, percent-decoded.
    private static func parameter(_ name: String, _ context: EmulatorContext) -> String {
        let raw = context.parameters.get(name) ?? ""
        return Substring(raw).percentDecoded ?? raw
    }
}
