import CommandSupport
import Pipeline

/// Prints an erasure report: each installation's final code and time, the requests whose
/// outcomes hide installations and why, then the verdict (ERASED only when the report is).
enum ErasureReceiptPrinter {
    static func print(_ report: ErasureReport) {
        let doubts = report.doubts
        guard !report.installations.isEmpty || !doubts.isEmpty else {
            Output.line("subject \(report.subject): no installations.delete outcome names this subject")
            return
        }
        Output.line("subject \(report.subject): \(report.installations.count) installation(s) in \(report.requestIDs.count) request(s)")
        for line in report.installations {
            Output.line("  \(line.item.padded(40)) \(line.code.rawValue.padded(16)) \(OutcomeTable.time(line.at))")
        }
        for doubt in doubts { Output.line("  \(doubt)") }
        var codes: [String: Int] = [:]
        for line in report.installations { codes[line.code.rawValue, default: 0] += 1 }
        if let erasedAt = report.erasedAt {
            Output.line("subject \(report.subject): ERASED at \(OutcomeTable.time(erasedAt)) (\(OutcomeTable.codes(codes)))")
            return
        }
        var why: [String] = []
        if !report.outstanding.isEmpty {
            let outstanding = report.outstanding.map { "\($0.item) \($0.code.rawValue)" }.joined(separator: ", ")
            why.append("\(report.outstanding.count) of \(report.installations.count) installation(s) outstanding: \(outstanding)")
        }
        if !doubts.isEmpty { why.append("\(doubts.count) request(s) without a success receipt line for every installation (listed above)") }
        Output.line("subject \(report.subject): NOT ERASED: " + why.joined(separator: "; "))
    }
}
