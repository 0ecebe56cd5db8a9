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
        issues.map { $0.description }.joined(separator: "\n")
    }
}

/// Collects issues while a config is decoded, so that one pass reports all of them.
///
/// Bounded, as every input's cost is (issue 38, item 12): a message is cut to
/// ``maximumMessageBytes`` (its start and end kept, whatever it quotes), and past
/// ``maximumIssues`` issues the rest are counted, not kept, and said in one last issue. A
/// config of 8 MiB of unknown keys is answered in kilobytes, not a 16 MB 422.
public struct ConfigDiagnostics: Sendable {
    /// The issues kept, then one that counts the rest when there were more than ``maximumIssues``.
    public var issues: [ConfigIssue] {
        guard omitted > 0 else { return kept }
        return kept + [
            ConfigIssue(
                pointer: .root,
                message: "\(omitted) more error\(omitted == 1 ? "" : "s") not shown (the first \(Self.maximumIssues) are)")
        ]
    }
    private var kept: [ConfigIssue] = []
    private var omitted = 0

    /// The most issues kept: enough to fix a config by, far fewer than a hostile one can cause.
    public static let maximumIssues = 1000
    /// The most UTF-8 bytes of one message.
    public static let maximumMessageBytes = 1024

    public init() {}

    public mutating func report(_ pointer: JSONPointer, _ message: String) {
        guard kept.count < Self.maximumIssues else {
            omitted += 1
            return
        }
        kept.append(ConfigIssue(pointer: pointer, message: Self.bounded(message)))
    }

    /// ``report(_:_:)`` for an issue whose message costs something to compose (a spelling
    /// suggestion), composed only when it is kept: a config of 700,000 unknown members made (and
    /// dropped) a suggestion for each, 3 s of an 8 MiB `/v1/policy/analyze` (outside attack 13, N2).
    public mutating func report(_ pointer: JSONPointer, composing message: () -> String) {
        guard kept.count < Self.maximumIssues else {
            omitted += 1
            return
        }
        report(pointer, message())
    }

    /// Every issue reported so far, kept or counted: how a reader tells whether a step added one.
    public var count: Int { kept.count + omitted }

    public var isEmpty: Bool { count == 0 }

    /// Appends issues collected separately (handlers compiled while the rest was still being read).
    mutating func append(_ other: ConfigDiagnostics) {
        for issue in other.kept { report(issue.pointer, issue.message) }
        omitted += other.omitted
    }

    /// `message`, or its first and last bytes around an ellipsis when it is longer than
    /// ``maximumMessageBytes`` (the start names the problem, the end may hold a suggestion).
    static func bounded(_ message: String) -> String {
        guard message.utf8.count > maximumMessageBytes else { return message }
        let head = EchoedText.bounded(message, maxBytes: maximumMessageBytes * 3 / 4)
        let tailBytes = maximumMessageBytes / 4
        var tail: [Unicode.Scalar] = []
        var used = 0
        for scalar in message.unicodeScalars.reversed() {
            used += UTF8.width(scalar)
            guard used <= tailBytes else { break }
            tail.append(scalar)
        }
        var text = String.UnicodeScalarView()
        text.append(contentsOf: tail.reversed())
        return head + String(text)
    }
}
