/// Why bytes were refused as a compiled policy image: what is wrong, and at which byte offset.
public struct PolicyImageError: Error, Sendable, CustomStringConvertible, Equatable {
    /// One sentence, naming the offset (`at byte 96`) where there is one.
    public let reason: String

    /// An error with `reason` as its whole message.
    public init(_ reason: String) {
        self.reason = reason
    }

    init(_ reason: String, at offset: Int) {
        self.reason = "\(reason) (at byte \(offset))"
    }

    public var description: String { reason }
}
