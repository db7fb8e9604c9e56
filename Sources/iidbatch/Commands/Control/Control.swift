import ArgumentParser

/// `iidbatch control`: the operator's levers on running workers, through the control topic.
struct Control: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Steer running workers live: pause, resume, rate limit, concurrency, in-flight bound, retry budget, cancel.",
        discussion: """
            The pipeline files are the defaults. Overrides live in a compacted Kafka topic \
            (--control-topic, default iidbatch.control), one versioned document per pipeline and \
            one for every pipeline (*); a pipeline's own override beats *, which beats its file, \
            which beats iidbatch's default. Every worker reads the whole topic before its first \
            request, then follows it and puts a new version in force within about a second. \
            Pausing starts no new backend call: calls in flight finish, their outcomes are \
            published and offsets committed, and the workers keep their partitions (paused) and \
            group membership. Each change is a new version with --reason and --by; `history` \
            lists them all.
            """,
        subcommands: [
            ControlGet.self, ControlSet.self, ControlPause.self, ControlResume.self, ControlReset.self, ControlCancelCommand.self, ControlHistory.self,
        ]
    )
}
