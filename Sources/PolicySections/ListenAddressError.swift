/// Why a `HOST:PORT` listen address (flag or config) was refused.
public struct ListenAddressError: Error, Equatable, Sendable {
    /// What is wrong, for the message after the address ("expected HOST:PORT").
    public var reason: String

    public init(_ reason: String) { self.reason = reason }
}
