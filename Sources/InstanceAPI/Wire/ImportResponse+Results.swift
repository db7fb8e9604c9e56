extension ImportResponse {
    /// The message of an `OK` entry that carries no `registration_token`.
    static let okWithoutToken = "status OK without a registration_token"

    /// The results of importing `apnsTokens`, the tokens this answer is for, in request order.
    ///
    /// Guarantees: no APNs token is given another token's registration token. Each entry's
    /// `apns_token` must be the request's token at its position (compared ignoring ASCII case:
    /// APNs tokens are hex): a count or a token that differs makes the whole answer malformed
    /// (`malformedResponse`, naming the position and both tokens), and no item gets a result.
    /// An `OK` entry without a `registration_token` is that item's `INTERNAL` (retried; an import
    /// is idempotent), never an imported `OK` without a token; an `OK` one whose token no token can be
    /// (`APILimits.answeredToken`: too long, a quote) makes the answer malformed, since outcomes
    /// are bounded by that size.
    public func importResults(for apnsTokens: [String]) throws(InstanceAPIError) -> [ImportResult] {
        guard results.count == apnsTokens.count else {
            throw .malformedResponse(api: .batchImport, status: 200, message: "\(results.count) results for \(apnsTokens.count) APNs tokens")
        }
        for (index, (token, entry)) in zip(apnsTokens, results).enumerated() where !Self.sameHex(entry.apnsToken, token) {
            throw .malformedResponse(
                api: .batchImport, status: 200,
                message:
                    "results[\(index)] is for APNs token \(Self.show(entry.apnsToken)), but the request's token \(index) is \(Self.show(token))"
            )
        }
        for (index, entry) in results.enumerated() where ResultClassifier.importStatus(entry.status).code == .ok {
            guard let registrationToken = entry.registrationToken, !registrationToken.isEmpty else { continue }
            try APILimits.answeredToken(registrationToken, field: "results[\(index)].registration_token", api: .batchImport, status: 200)
        }
        return zip(apnsTokens, results).map { token, entry in
            let result = ResultClassifier.importStatus(entry.status)
            guard result.code == .ok else { return ImportResult(apnsToken: token, result: result, registrationToken: nil) }
            guard let registrationToken = entry.registrationToken, !registrationToken.isEmpty else {
                return ImportResult(apnsToken: token, result: ItemResult(.internal, message: Self.okWithoutToken), registrationToken: nil)
            }
            return ImportResult(apnsToken: token, result: result, registrationToken: registrationToken)
        }
    }

    /// Whether `a` and `b` are the same bytes but for ASCII case (APNs tokens are hex).
    private static func sameHex(_ a: String, _ b: String) -> Bool {
        func lower(_ byte: UInt8) -> UInt8 { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte }
        return a.utf8.elementsEqual(b.utf8) { lower($0) == lower($1) }
    }

    /// A token quoted for a message, cut to its first 64 bytes.
    private static func show(_ token: String) -> String {
        token.utf8.count <= 64 ? "'\(token)'" : "'\(token.utf8Prefix(maxBytes: 64))…' (\(token.utf8.count) bytes)"
    }
}
