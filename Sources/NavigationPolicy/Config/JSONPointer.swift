/// An RFC 6901 JSON pointer, used to say exactly where a config error is.
public struct JSONPointer: Sendable, Hashable, CustomStringConvertible {
    public private(set) var tokens: [String]

    public init(_ tokens: [String] = []) {
        self.tokens = tokens
    }

    /// The document root.
    public static let root = JSONPointer()

    public func appending(_ key: String) -> JSONPointer {
        JSONPointer(tokens + [key])
    }

    public func appending(_ index: Int) -> JSONPointer {
        JSONPointer(tokens + [String(index)])
    }

    /// `/handlers/2/match/hosts/0`, with `~` and `/` escaped; the root is the empty string.
    public var description: String {
        tokens.map { "/" + $0.replacing("~", with: "~0").replacing("/", with: "~1") }.joined()
    }
}
