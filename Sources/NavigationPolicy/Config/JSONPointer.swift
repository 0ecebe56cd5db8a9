/// An RFC 6901 JSON pointer, used to say exactly where a config error is.
public struct JSONPointer: Sendable, Hashable, CustomStringConvertible {
    public private(set) var tokens: [String]

    public init(_ tokens: [String] = []) {
        self.tokens = tokens
    }

    /// The document root.
    public static let root = JSONPointer()

    public func appending(_ key: String) -> JSONPointer {
        // One allocation sized for the result; `tokens + [key]` also allocates the literal.
        // Compiles build a pointer for every config value, so this is on the 100k-handler path.
        var extended: [String] = []
        extended.reserveCapacity(tokens.count + 1)
        extended.append(contentsOf: tokens)
        extended.append(key)
        return JSONPointer(extended)
    }

    public func appending(_ index: Int) -> JSONPointer {
        appending(String(index))
    }

    /// `/handlers/2/match/hosts/0`, with `~` and `/` escaped; the root is the empty string.
    public var description: String {
        tokens.map { "/" + $0.replacing("~", with: "~0").replacing("/", with: "~1") }.joined()
    }
}
