import ArgumentParser
import Pipeline

/// `PIPELINE | --all`: what `pause`, `resume` and `reset` act on.
struct ControlTarget: ParsableArguments {
    @Argument(help: "The pipeline (its file's `name`).")
    var pipeline: String?

    @Flag(help: "Every pipeline (the `*` scope).")
    var all = false

    func validate() throws {
        switch (pipeline, all) {
        case (nil, false): throw ValidationError("name a pipeline or give --all")
        case (let name?, true): throw ValidationError("give either the pipeline '\(name)' or --all, not both")
        default: break
        }
    }

    /// The scope: the pipeline's name, or `*`.
    var scope: String { pipeline ?? ControlDocument.allPipelines }
}
