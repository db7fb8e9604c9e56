import HummingbirdCore
import Logging
import NIOCore

/// A server's child-channel setup that counts each TCP connection accepted, then sets it up as
/// `base` does: the emulator's `connections` statistic, counted where connections arrive.
struct CountingChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    /// The setup every connection gets.
    let base: Base
    /// Called once per connection accepted, before its setup.
    let accepted: @Sendable () -> Void

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        accepted()
        return base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
