import NIOCore
import Synchronization

/// One call's HTTP/2 stream, as far as cancelling it goes: a call cancelled before its stream
/// opened has the stream reset as soon as it opens; one cancelled after, at once. Safe to share.
final class StreamCall: Sendable {
    private enum State {
        case opening
        case open(@Sendable () -> Void)
        case cancelled
    }

    private let state = Mutex(State.opening)

    /// The call's stream opened, `reset` resets it: false when the call was cancelled already
    /// (reset the stream).
    func opened(reset: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { state in
            guard case .opening = state else { return false }
            state = .open(reset)
            return true
        }
    }

    /// Whether the call was cancelled before its stream opened: then its request is not sent.
    var cancelledBeforeOpening: Bool {
        state.withLock { state in
            if case .cancelled = state { true } else { false }
        }
    }

    /// Resets the call's stream, now or when it opens.
    func cancel() {
        let reset = state.withLock { state -> (@Sendable () -> Void)? in
            defer { state = .cancelled }
            if case .open(let reset) = state { return reset }
            return nil
        }
        reset?()
    }
}
