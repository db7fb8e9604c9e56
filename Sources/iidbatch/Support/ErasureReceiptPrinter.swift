import CommandSupport
import Pipeline

/// Prints an erasure report: each installation's final code and time, then the verdict.
enum ErasureReceiptPrinter {
    static func print(_ report: ErasureReport) {
        guard !report.installations.isEmpty else {
            Output.line("subject \(report.subject): no installations.delete outcome names this subject")
            return
        }
        Output.line("subject \(report.subject): \(report.installations.count) installation(s) in \(report.requestIDs.count) request(s)")
        for line in report.installations.values.sorted(by: { $0.item < $1.item }) {
            Output.line("  \(line.item.padded(40)) \(line.code.rawValue.padded(16)) \(OutcomeTable.time(line.at))")
        }
        var codes: [String: Int] = [:]
        for line in report.installations.values { codes[line.code.rawValue, default: 0] += 1 }
        if let erasedAt = report.erasedAt {
            Output.line("subject \(report.subject): ERASED at \(OutcomeTable.time(erasedAt)) (\(OutcomeTable.codes(codes)))")
        } else {
            let outstanding = report.outstanding.map { "\($0.item) \($0.code.rawValue)" }.joined(separator: ", ")
            Output.line(
                "subject \(report.subject): NOT ERASED: \(report.outstanding.count) of \(report.installations.count) installation(s) outstanding: \(outstanding)"
            )
        }
    }
}
