import InstanceAPI
import Testing

@testable import Pipeline

@Suite("A failure is a call's own only when its call could have been the cause")
struct APIAnswersTests {
    let t0 = ContinuousClock.now

    @Test("a call of the same API answered after this one started makes its outage-like failure its own, but never a token it could not get")
    func ownFailure() {
        var answers = APIAnswers()
        answers.answered(.fcmSubscribe, at: t0 + .seconds(1))
        let timedOut = InstanceAPIError.timedOut(api: .fcmSubscribe, timeout: .seconds(30))
        #expect(answers.isOwnFailure(timedOut, of: .fcmSubscribe, startedAt: t0, systemFailedAt: nil))
        #expect(!answers.isOwnFailure(timedOut, of: .fcmSubscribe, startedAt: t0 + .seconds(2), systemFailedAt: nil), "nothing answered since")
        #expect(!answers.isOwnFailure(timedOut, of: .fcmUnsubscribe, startedAt: t0, systemFailedAt: nil), "another API's answer says nothing")
        // The token endpoint failed: the call was never sent, whatever the others did.
        let noToken = InstanceAPIError.credentials("token endpoint https://oauth2.googleapis.com/token did not answer")
        #expect(!answers.isOwnFailure(noToken, of: .fcmSubscribe, startedAt: t0, systemFailedAt: nil))
        #expect(!answers.isOwnFailure(noToken, of: .fcmSubscribe, startedAt: t0, systemFailedAt: t0 - .seconds(1)))
    }
}
