/// Why a configured host, path or location pattern was rejected; the reason is shown to the user.
public struct PatternError: Error, Equatable, Sendable {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
}
