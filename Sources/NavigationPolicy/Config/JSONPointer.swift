/// An RFC 6901 JSON pointer, used to say exactly where a config error is.
///
/// Stored as a chain of tokens sharing their parent: a compile makes a pointer for every
/// handler and nested object (`/handlers/41/match`), nearly all of them never printed, so
/// appending is one small allocation that neither copies the parent's tokens nor formats
/// an index; ``tokens`` and ``description`` build the text when someone reads it.
public struct JSONPointer: Sendable, Hashable, CustomStringConvertible {
    private let last: Segment?

    private enum Token: Sendable {
        case key(String)
        case index(Int)

        var text: String {
            switch self {
            case .key(let key): key
            case .index(let index): String(index)
            }
        }
    }

    private final class Segment: Sendable {
        let parent: Segment?
        let token: Token

        init(parent: Segment?, token: Token) {
            self.parent = parent
            self.token = token
        }
    }

    private init(last: Segment?) {
        self.last = last
    }

    public init(_ tokens: [String] = []) {
        var last: Segment?
        for token in tokens { last = Segment(parent: last, token: .key(token)) }
        self.last = last
    }

    /// The document root.
    public static let root = JSONPointer()

    /// The reference tokens from the root, unescaped (an index as its decimal text).
    public var tokens: [String] {
        var reversed: [String] = []
        var segment = last
        while let current = segment {
            reversed.append(current.token.text)
            segment = current.parent
        }
        return reversed.reversed()
    }

    public func appending(_ key: String) -> JSONPointer {
        JSONPointer(last: Segment(parent: last, token: .key(key)))
    }

    public func appending(_ index: Int) -> JSONPointer {
        JSONPointer(last: Segment(parent: last, token: .index(index)))
    }

    // Equal when they name the same place: an index and a key with its decimal text are the
    // same token, as they were when every token was stored as text.
    public static func == (lhs: JSONPointer, rhs: JSONPointer) -> Bool {
        lhs.last === rhs.last || lhs.tokens == rhs.tokens
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(tokens)
    }

    /// `/handlers/2/match/hosts/0`, with `~` and `/` escaped; the root is the empty string.
    /// A token longer than ``EchoedText/maximumBytes`` (only an unknown key can be) is cut and
    /// ends with ``EchoedText/ellipsis``: an error's place, not a copy of the input.
    public var description: String {
        tokens.map { "/" + EchoedText.bounded($0).replacing(every: "~", with: "~0").replacing(every: "/", with: "~1") }.joined()
    }
}
