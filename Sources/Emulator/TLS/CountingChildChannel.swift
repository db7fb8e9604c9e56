import HummingbirdCore
import Logging
import NIOCore

/// A server's child-channel setup that counts each TCP connection accepted, then sets it up as
/// `base` does: the emulator's `connections` statistic, counted where connections arrive.
struct CountingChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    /// What the base setup yields per connection.
    typealias Value = Base.Value

    /// The setup every connection gets.
    let base: Base
    /// Called once per connection accepted, before its setup.
    let accepted: @Sendable () -> Void

    /// Counts the connection, then sets it up as `base` does.
    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        accepted()
        return base.setup(channel: channel, logger: logger)
    }

    /// Serves the connection as `base` does.
    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
