/// The result of importing one APNs token.
public struct ImportResult: Sendable, Hashable {
    /// The APNs token.
    public var apnsToken: String
    /// `OK` or the reason it failed.
    public var result: ItemResult
    /// The FCM registration token, when the import succeeded.
    public var registrationToken: String?

    /// A result.
    public init(apnsToken: String, result: ItemResult, registrationToken: String?) {
        self.apnsToken = apnsToken
        self.result = result
        self.registrationToken = registrationToken
    }
}
