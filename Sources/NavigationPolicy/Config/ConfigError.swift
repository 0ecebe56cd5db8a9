/// One thing wrong with a config, at the place it is wrong.
public struct ConfigIssue: Sendable, Equatable, CustomStringConvertible {
    public var pointer: JSONPointer
    public var message: String

    public init(pointer: JSONPointer, message: String) {
        self.pointer = pointer
        self.message = message
    }

    /// `/handlers/2/match/hosts/0: "*.": empty host pattern`.
    public var description: String {
        let place = pointer.tokens.isEmpty ? "(root)" : pointer.description
        return "\(place): \(message)"
    }
}

/// A config that cannot be applied, with every issue found (not just the first).
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    public var issues: [ConfigIssue]

    public init(issues: [ConfigIssue]) {
        self.issues = issues
    }

    public var description: String {
        issues.map(\.description).joined(separator: "\n")
    }
}

/// Collects issues while a config is decoded, so that one pass reports all of them.
public struct ConfigDiagnostics: Sendable {
    public private(set) var issues: [ConfigIssue] = []

    public init() {}

    public mutating func report(_ pointer: JSONPointer, _ message: String) {
        issues.append(ConfigIssue(pointer: pointer, message: message))
    }

    public var isEmpty: Bool { issues.isEmpty }

    /// Appends issues collected separately (handlers compiled while the rest was still being read).
    mutating func append(_ other: ConfigDiagnostics) {
        issues.append(contentsOf: other.issues)
    }
}
