import Foundation
import InstanceAPI
import Pipeline

/// How `iidbatch batches` writes a batch's progress: a table row, a bar redrawn on a terminal,
/// a plain line elsewhere.
enum BatchProgressText {
    /// The table's header.
    static let header =
        "BATCH".padded(40) + " " + "STATE".padded(10) + " " + "REQUESTS".leftPadded(to: 15) + " " + "ITEMS".leftPadded(to: 21) + " "
        + "ITEMS/S".leftPadded(to: 9) + " " + "ETA".leftPadded(to: 8) + "  OP / PIPELINE / CREATED"

    /// One batch's row.
    static func row(_ progress: BatchProgress, _ state: BatchState, at now: Date) -> String {
        let manifest = progress.manifest
        return manifest.name.padded(40) + " " + state.rawValue.padded(10) + " "
            + "\(progress.requestsDone)/\(manifest.requests)".leftPadded(to: 15) + " " + "\(progress.itemsDone)/\(manifest.items)".leftPadded(to: 21) + " "
            + rate(progress.rate(at: now)).leftPadded(to: 9) + " " + eta(progress, state, at: now).leftPadded(to: 8) + "  "
            + "\(manifest.op?.rawValue ?? "mixed ops") / \(manifest.pipeline ?? "?") / \(manifest.createdAt.formatted(.iso8601)) by \(manifest.createdBy)"
    }

    /// `\r` + `gdpr-7 running [#####.....]  45%  5400/12000 items  120 items/s  ETA 55s` + clear to end of line.
    static func bar(_ progress: BatchProgress, _ state: BatchState, at now: Date, width: Int = 30) -> String {
        let manifest = progress.manifest
        let fraction = manifest.items > 0 ? max(0, min(1, Double(progress.itemsDone) / Double(manifest.items))) : 1
        let filled = Int((fraction * Double(width)).rounded(.down))
        return "\r\(manifest.name) \(state.rawValue) [" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] "
            + String(Int((fraction * 100).rounded(.down))).leftPadded(to: 3) + "%  " + counts(progress) + "\u{1B}[K"
    }

    /// `gdpr-7 running: 5400/12000 items (45%), 54/120 requests, 120 items/s, ETA 55s`.
    static func line(_ progress: BatchProgress, _ state: BatchState, at now: Date) -> String {
        "\(progress.manifest.name) \(state.rawValue): " + counts(progress) + ", \(rate(progress.rate(at: now))) items/s, ETA \(eta(progress, state, at: now))"
    }

    private static func counts(_ progress: BatchProgress) -> String {
        "\(progress.itemsDone)/\(progress.manifest.items) items, \(progress.requestsDone)/\(progress.manifest.requests) requests"
    }

    /// Items per second, to one decimal below 10.
    static func rate(_ rate: Double) -> String {
        rate < 10 ? NumberText.fixed(rate, places: 1) : String(Int(rate.rounded()))
    }

    /// The time left: `0s` when done, `-` when the batch will not go on by itself (cancelled,
    /// paused), `--` when there is no rate yet, else `1h02m`, `3m05s` or `42s`.
    static func eta(_ progress: BatchProgress, _ state: BatchState, at now: Date) -> String {
        switch state {
        case .done: return "0s"
        case .cancelled, .paused: return "-"
        case .submitting, .running:
            guard let seconds = progress.secondsLeft(at: now).map({ Int($0.rounded(.up)) }) else { return "--" }
            if seconds >= 3_600 { return "\(seconds / 3_600)h" + String(seconds % 3_600 / 60).leftPadded(to: 2, with: "0") + "m" }
            if seconds >= 60 { return "\(seconds / 60)m" + String(seconds % 60).leftPadded(to: 2, with: "0") + "s" }
            return "\(seconds)s"
        }
    }
}
