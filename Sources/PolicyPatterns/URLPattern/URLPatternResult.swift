/// One named (or numbered) group of a component match.
public struct URLPatternGroup: Sendable, Equatable {
    /// The group's name: `:name`'s name, or "0", "1", … for `*` and `(…)` groups.
    public let name: String
    /// What the group matched; nil when it did not take part in the match (JavaScript's `undefined`).
    public let value: String?
}

/// The match of one component (`URLPatternComponentResult`).
public struct URLPatternComponentResult: Sendable, Equatable {
    /// The component of the input that was matched.
    public let input: String
    /// The groups, in the order they occur in the pattern.
    public let groups: [URLPatternGroup]

    /// The value of the group called `name` (nil when absent or not taking part).
    public subscript(group name: String) -> String? {
        groups.first { $0.name == name }?.value ?? nil
    }
}

/// An input to match: a URL string (with an optional base URL) or a dictionary of components.
public enum URLPatternInput: Sendable, Equatable {
    case string(String)
    case dictionary(URLPatternInit)
}

/// The result of ``URLPattern/exec(_:baseURL:)`` (`URLPatternResult`).
public struct URLPatternResult: Sendable, Equatable {
    /// The arguments matched: the input, and the base URL string when one was given.
    public let inputs: [URLPatternInput]
    /// Each component's result, keyed by ``URLPatternInit/componentNames``, in that order.
    public let components: [(name: String, result: URLPatternComponentResult)]

    /// The result of the component called `name`.
    public subscript(component name: String) -> URLPatternComponentResult? {
        components.first { $0.name == name }?.result
    }

    public static func == (lhs: URLPatternResult, rhs: URLPatternResult) -> Bool {
        lhs.inputs == rhs.inputs && lhs.components.elementsEqual(rhs.components) { $0.name == $1.name && $0.result == $1.result }
    }
}
