/// What this binary is: its release version and the commit it was built from, for
/// `iidbatch --version`, the run's first log line and the `iidbatch_build_info` metric.
enum BuildInfo {
    /// The release version, as the top entry of CHANGELOG.md names it.
    static let version = "0.9.0"
    /// The commit the binary was built from; "unknown" when the build could not tell.
    static let commit = "unknown"
}
