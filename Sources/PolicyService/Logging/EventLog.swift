import Foundation
public import JSONSupport

/// Structured logging: one JSON object per line, fields not prose (the swift-log shape).
public struct EventLog: Sendable {
    /// Severity, least to most; `serve --log-level` drops events below the level it names.
    public enum Level: String, Sendable, CaseIterable, Comparable {
        case debug, info, warning, error

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rank < rhs.rank }

        private var rank: Int {
            switch self {
            case .debug: 0
            case .info: 1
            case .warning: 2
            case .error: 3
            }
        }
    }

    private let sink: @Sendable (String) -> Void
    private var minimumLevel = Level.debug

    /// Logs to standard error, one `write` per line so concurrent lines never interleave.
    public static let standardError = EventLog { line in
        // Not `write(_:)`, which traps when stderr is a closed pipe: a daemon must not die of its log.
        try? FileHandle.standardError.write(contentsOf: Data((line + "\n").utf8))
    }

    public init(sink: @escaping @Sendable (String) -> Void) {
        self.sink = sink
    }

    /// The same log without the events below `level`.
    public func filtered(from level: Level) -> EventLog {
        var filtered = self
        filtered.minimumLevel = level
        return filtered
    }

    /// Whether an event of `level` is written; callers may skip building costly fields when not.
    public func isEnabled(_ level: Level) -> Bool { level >= minimumLevel }

    /// Emits `{"time":…,"level":…,"event":…, …fields}`, unless `level` is filtered out.
    public func log(_ level: Level, _ event: String, _ fields: JSONObject = [:]) {
        guard isEnabled(level) else { return }
        var object: JSONObject = [
            "time": .string(Timestamp.iso8601(Date())),
            "level": .string(level.rawValue),
            "event": .string(event),
        ]
        object.members.append(contentsOf: fields.members)
        sink(JSONValue.object(object).serialized)
    }
}
