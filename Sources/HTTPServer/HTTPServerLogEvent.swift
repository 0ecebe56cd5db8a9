public import JSONSupport

/// A structured event reported by the server (one JSON line per event in a typical sink).
public struct HTTPServerLogEvent: Sendable, Equatable {
    /// Severity of an event.
    public enum Level: String, Sendable {
        case debug, info, warning, error
    }

    /// Severity.
    public var level: Level
    /// Stable event name, e.g. "http.started", "http.request_rejected", "mhd.message".
    public var event: String
    /// Event fields with lowerCamelCase keys.
    public var fields: JSONObject

    /// Creates an event.
    public init(level: Level, event: String, fields: JSONObject = JSONObject()) {
        self.level = level
        self.event = event
        self.fields = fields
    }

    /// The event as one JSON object: `level`, `event`, then the fields.
    public var jsonObject: JSONObject {
        var object: JSONObject = ["level": .string(level.rawValue), "event": .string(event)]
        object.members.append(contentsOf: fields.members)
        return object
    }
}

/// Receives server events; called from worker threads, so it must be thread-safe.
public typealias HTTPServerLogger = @Sendable (HTTPServerLogEvent) -> Void
