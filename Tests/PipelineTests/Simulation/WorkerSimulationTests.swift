import Foundation
import TestSupport
import Testing

@testable import Pipeline

/// The worker's machine (`WorkerMachine`, whole) under seeded random events and answers (see
/// `WorkerSimulation`).
///
/// Each seed is one run: a configuration, `IIDBATCH_SIM_STEPS` chaotic steps (default 400), then
/// healing, or (every third seed) the worker's stop. The suite runs seeds 1 … `IIDBATCH_SIM_RUNS` (default 100; seconds); a longer
/// search sets it higher. A failure names its seed; `IIDBATCH_SIM_SEED=N` replays that seed alone,
/// and `IIDBATCH_SIM_VERBOSE=1` prints each seed before it runs (a trap then shows which).
@Suite("Worker simulation: seeded random events and answers, invariants after every step")
struct WorkerSimulationTests {
    private static func setting(_ name: String) -> UInt64? {
        ProcessInfo.processInfo.environment[name].flatMap { UInt64($0) }
    }

    @Test(
        "every seed: no trap, one outcome per request counting each item by its last answer, commits behind acknowledgements, per-key order, in-flight bounds, no stall, nothing after the stop"
    )
    func seeds() async {
        let seeds = Self.setting("IIDBATCH_SIM_SEED").map { [$0] } ?? Array(1...(Self.setting("IIDBATCH_SIM_RUNS") ?? 100))
        let steps = Int(Self.setting("IIDBATCH_SIM_STEPS") ?? 400)
        let verbose = Self.setting("IIDBATCH_SIM_VERBOSE") == 1
        // Seconds of CPU: off the cooperative pool (see `onOwnThread`).
        let failures = await onOwnThread { () -> [String] in
            var failures: [String] = []
            for seed in seeds {
                if verbose { print("simulation seed \(seed)") }
                var simulation = WorkerSimulation(seed: seed)
                defer { if verbose { print("  steps \(simulation.steps)") } }
                do {
                    try simulation.chaos(steps: steps)
                    // A third of the runs end with the worker's stop, the rest healing.
                    if seed % 3 == 0 { try simulation.stop() } else { try simulation.heal() }
                } catch {
                    failures.append("seed \(seed): \(error) — replay with IIDBATCH_SIM_SEED=\(seed)")
                    if failures.count >= 5 { break }
                }
            }
            return failures
        }
        for failure in failures { Issue.record("\(failure)") }
    }
}
