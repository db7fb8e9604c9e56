import NIOCore
import Synchronization

/// One call's HTTP/2 stream, as far as cancelling it goes: a call cancelled before its stream
/// opened has the stream reset as soon as it opens; one cancelled after, at once. Safe to share.
final class StreamCall: Sendable {
    private enum State {
        case opening
        case open(any Channel)
        case cancelled
    }

    private let state = Mutex(State.opening)

    /// The call's stream opened: false when the call was cancelled already (reset the stream).
    func opened(_ stream: any Channel) -> Bool {
        state.withLock { state in
            guard case .opening = state else { return false }
            state = .open(stream)
            return true
        }
    }

    /// Resets the call's stream, now or when it opens.
    func cancel() {
        let stream = state.withLock { state -> (any Channel)? in
            defer { state = .cancelled }
            if case .open(let stream) = state { return stream }
            return nil
        }
        stream?.close(promise: nil)
    }
}
