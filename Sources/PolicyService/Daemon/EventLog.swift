public import Foundation
public import JSONSupport

/// Structured logging: one JSON object per line, fields not prose (the swift-log shape).
public struct EventLog: Sendable {
    public enum Level: String, Sendable {
        case debug, info, warning, error
    }

    private let sink: @Sendable (String) -> Void

    /// Logs to standard error, one `write` per line so concurrent lines never interleave.
    public static let standardError = EventLog { line in
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    public init(sink: @escaping @Sendable (String) -> Void) {
        self.sink = sink
    }

    /// Emits `{"time":…,"level":…,"event":…, …fields}`.
    public func log(_ level: Level, _ event: String, _ fields: JSONObject = [:]) {
        var object: JSONObject = [
            "time": .string(Timestamp.iso8601(Date())),
            "level": .string(level.rawValue),
            "event": .string(event),
        ]
        object.members.append(contentsOf: fields.members)
        sink(JSONValue.object(object).serialized)
    }
}

/// RFC 3339 timestamps in UTC with milliseconds, for logs and API fields.
public enum Timestamp {
    public static func iso8601(_ date: Date) -> String {
        date.formatted(
            .iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: true).timeSeparator(.colon)
                .timeZone(separator: .omitted))
    }
}
