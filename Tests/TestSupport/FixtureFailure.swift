/// A test precondition or fixture expectation that did not hold (a file that could not be set up,
/// a process that did not say what it should in time): the test fails with `description`.
package struct FixtureFailure: Error, CustomStringConvertible {
    /// What did not hold.
    package var description: String

    /// A failure saying `description`.
    package init(_ description: String) { self.description = description }
}
