import AsyncHTTPClient
import NIOCore
import NIOPosix

/// Turns transport errors into `InstanceAPIError`s with words an operator understands.
enum HTTPFailure {
    static func map(_ error: any Error, api: BackendAPI, timeout: Duration) -> InstanceAPIError {
        if let error = error as? TransportError, error == .timedOut { return .timedOut(api: api, timeout: timeout) }
        if let error = error as? TransportError, error == .withdrawn { return .withdrawn(api: api) }
        if case .notConnected(let reason)? = error as? TransportError { return .unreachable(api: api, message: reason) }
        if case .connectTimeout? = error as? ChannelError { return .timedOut(api: api, timeout: timeout) }
        if let error = error as? HTTPClientError {
            if error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
                return .timedOut(api: api, timeout: timeout)
            }
        }
        return .transport(api: api, message: describe(error))
    }

    /// True when `error` says no server is there at all: the host name does not resolve, or
    /// every address refused the connection. False for a server that is there and did not
    /// answer in time, and for anything else.
    static func isNoServer(_ error: any Error) -> Bool {
        if let error = error as? IOError { return error.errnoCode == ECONNREFUSED }
        if let error = error as? NIOConnectionError {
            if error.connectionErrors.isEmpty { return error.dnsAError != nil || error.dnsAAAAError != nil }
            return error.connectionErrors.allSatisfy { isNoServer($0.error) }
        }
        return false
    }

    /// True when `error` says the host name does not resolve (no address was tried).
    static func isUnresolved(_ error: any Error) -> Bool {
        guard let error = error as? NIOConnectionError else { return false }
        return error.connectionErrors.isEmpty && (error.dnsAError != nil || error.dnsAAAAError != nil)
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? NIOConnectionError {
            return "connection to \(error.host):\(error.port) failed: \(error.connectionErrors.map { "\($0.error)" }.joined(separator: "; "))"
        }
        if let error = error as? IOError { return error.description }
        return String(describing: error)
    }
}
