extension FaultPlan {
    /// Builds a plan from command-line values, naming the flag and value of anything malformed.
    ///
    /// - Parameters:
    ///   - itemErrors: `CODE=RATE`, e.g. `INTERNAL=0.1`.
    ///   - callErrors: `STATUS=RATE`, e.g. `503=0.05`.
    ///   - quotas: `API=CALLS_PER_SECOND` (e.g. `iid.batchAdd=50`) or a bare number for each API.
    ///   - outages: `START+DURATION` in seconds, e.g. `30+10`.
    ///   - pageErrors: `STATUS=RATE`, e.g. `404=1`: answers that are not the API's.
    ///   - retryAfter: the `Retry-After` value to send, verbatim.
    public static func parse(
        itemErrors: [String] = [], callErrors: [String] = [], quotas: [String] = [],
        latencyMilliseconds: Double = 0, jitterMilliseconds: Double = 0, outages: [String] = [], pageErrors: [String] = [], retryAfter: String? = nil
    ) throws(EmulatorError) -> FaultPlan {
        var plan = FaultPlan(latencyMilliseconds: latencyMilliseconds, jitterMilliseconds: jitterMilliseconds, retryAfter: retryAfter)
        for text in pageErrors {
            let (status, rate) = try pair(text, option: "--page-error", expecting: "STATUS=RATE, e.g. 404=1")
            plan.pageErrors[status] = rate
        }
        for text in itemErrors {
            let (code, rate) = try pair(text, option: "--item-error", expecting: "CODE=RATE, e.g. INTERNAL=0.1")
            plan.itemErrors[code] = rate
        }
        for text in callErrors {
            let (status, rate) = try pair(text, option: "--call-error", expecting: "STATUS=RATE, e.g. 503=0.05")
            plan.callErrors[status] = rate
        }
        for text in quotas {
            if let rate = Double(text) {
                plan.quota["*"] = rate
            } else {
                let (api, rate) = try pair(text, option: "--quota", expecting: "API=CALLS_PER_SECOND or CALLS_PER_SECOND")
                plan.quota[api] = rate
            }
        }
        for text in outages {
            let parts = text.split(separator: "+")
            guard parts.count == 2, let start = seconds(parts[0]), let duration = seconds(parts[1]) else {
                throw .invalidOption(option: "--outage", value: text, reason: "expected START+DURATION in seconds, e.g. 30+10")
            }
            plan.outages.append(Outage(startSeconds: start, durationSeconds: duration))
        }
        do { try plan.validate() } catch {
            throw .invalidOption(option: "faults", value: "", reason: error.description)
        }
        return plan
    }

    private static func pair(_ text: String, option: String, expecting: String) throws(EmulatorError) -> (String, Double) {
        let parts = text.split(separator: "=", maxSplits: 1)
        guard parts.count == 2, !parts[0].isEmpty, let value = Double(parts[1]) else {
            throw .invalidOption(option: option, value: text, reason: "expected \(expecting)")
        }
        return (String(parts[0]), value)
    }

    private static func seconds(_ text: Substring) -> Double? {
        Double(text.hasSuffix("s") ? text.dropLast() : text)
    }
}
