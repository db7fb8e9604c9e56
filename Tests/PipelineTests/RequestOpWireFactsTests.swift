import InstanceAPI
import Testing

@testable import Pipeline

/// Issue 34: which API an op calls and how many items a call carries are the op's, on each backend.
@Suite("Request ops: the API each calls and the items a call carries, per backend")
struct RequestOpWireFactsTests {
    @Test("topic ops and instances.info change API with the backend; the others call one API on both")
    func apis() {
        #expect(RequestOp.topicsSubscribe.api(on: .iidBatch) == .batchAdd && RequestOp.topicsSubscribe.api(on: .fcmV1) == .fcmSubscribe)
        #expect(RequestOp.topicsUnsubscribe.api(on: .iidBatch) == .batchRemove && RequestOp.topicsUnsubscribe.api(on: .fcmV1) == .fcmUnsubscribe)
        #expect(RequestOp.instancesInfo.api(on: .iidBatch) == .instanceInfo && RequestOp.instancesInfo.api(on: .fcmV1) == .fcmListTopics)
        let same: [RequestOp: BackendAPI] = [
            .installationsDelete: .deleteInstance, .apnsImport: .batchImport, .groupsCreate: .deviceGroup, .groupsAdd: .deviceGroup,
            .groupsRemove: .deviceGroup, .groupsExport: .groupExport,
        ]
        for (op, api) in same { #expect(TopicBackend.allCases.allSatisfy { op.api(on: $0) == api }, "\(op)") }
    }

    @Test("items per call: the limit of the API called, one per token on FCM v1")
    func itemsPerCall() {
        let onIIDBatch: [RequestOp: Int] = [
            .installationsDelete: 1, .topicsSubscribe: 1_000, .topicsUnsubscribe: 1_000, .apnsImport: 100, .groupsCreate: 20, .groupsAdd: 20,
            .groupsRemove: 20, .instancesInfo: 1, .groupsExport: 1,
        ]
        for op in RequestOp.allCases {
            #expect(op.itemsPerCall(on: .iidBatch) == onIIDBatch[op], "\(op)")
            let onFCM = op == .topicsSubscribe || op == .topicsUnsubscribe ? 1 : onIIDBatch[op]
            #expect(op.itemsPerCall(on: .fcmV1) == onFCM, "\(op)")
            for backend in TopicBackend.allCases { #expect(op.itemsPerCall(on: backend) == APILimits.itemsPerCall(op.api(on: backend))) }
        }
        #expect(RequestOp.largestCallLimit == APILimits.topicBatch)
    }

    @Test("a pipeline's items per call: its max-items within the op's limit on its backend")
    func pipelineItemsPerCall() {
        var pipeline = PipelineConfiguration(name: "p", requestTopic: "r", maxItemsPerCall: 500)
        #expect(pipeline.itemsPerCall(.topicsSubscribe) == 500 && pipeline.itemsPerCall(.apnsImport) == 100)
        pipeline.topicBackend = .fcmV1
        #expect(pipeline.itemsPerCall(.topicsSubscribe) == 1 && pipeline.itemsPerCall(.apnsImport) == 100)
        #expect(pipeline.apis.contains(.fcmSubscribe) && !pipeline.apis.contains(.batchAdd))
    }
}
