/// Why a pattern was refused by ``ECMARegex``: an ECMAScript syntax error, or a construct this
/// linear-time engine does not support (backreferences, lookaround, property escapes, …).
public struct ECMARegexError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong, naming the construct (for example "lookahead (?= ) is not supported").
    public let message: String
    /// Where in the pattern, in Unicode scalars (code points) from its start.
    public let offset: Int

    /// Makes an error for the construct at `offset` (in Unicode scalars).
    public init(_ message: String, offset: Int) {
        self.message = message
        self.offset = offset
    }

    public var description: String { "regular expression: \(message) at offset \(offset)" }
}
