public import Foundation
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

/// RFC 3339 timestamps in UTC with milliseconds, for logs and API fields.
public enum Timestamp {
    /// `2026-12-02T03:04:59.676Z`. Every decision-log line has one, so years 1970 to 9999 are
    /// written from `gmtime_r` by hand: Foundation's ISO 8601 format style cost ~5% of a logged
    /// GET `/v1/decide` (bench/decision-log-cost.sh). Other years go to Foundation; the unit
    /// tests check that both give the same text.
    public static func iso8601(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        guard interval >= 0, interval < 253_402_300_800 else { return foundationISO8601(date) }
        let whole = interval.rounded(.down)
        var seconds = time_t(whole)
        let milliseconds = min(999, Int((interval - whole) * 1000))
        var fields = tm()
        guard gmtime_r(&seconds, &fields) != nil else { return foundationISO8601(date) }
        return String(unsafeUninitializedCapacity: 24) { buffer in
            var index = 0
            func put(_ value: Int, digits: Int) {
                var divisor = 1
                for _ in 1..<digits { divisor *= 10 }
                while divisor > 0, index < buffer.count {
                    buffer[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: (value / divisor) % 10)
                    index += 1
                    divisor /= 10
                }
            }
            func put(_ byte: Character) {
                guard index < buffer.count, let ascii = byte.asciiValue else { return }
                buffer[index] = ascii
                index += 1
            }
            put(Int(fields.tm_year) + 1900, digits: 4)
            put("-")
            put(Int(fields.tm_mon) + 1, digits: 2)
            put("-")
            put(Int(fields.tm_mday), digits: 2)
            put("T")
            put(Int(fields.tm_hour), digits: 2)
            put(":")
            put(Int(fields.tm_min), digits: 2)
            put(":")
            put(Int(fields.tm_sec), digits: 2)
            put(".")
            put(milliseconds, digits: 3)
            put("Z")
            return index
        }
    }

    /// The same text from Foundation's ISO 8601 format style.
    static func foundationISO8601(_ date: Date) -> String {
        date.formatted(
            .iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: true).timeSeparator(.colon)
                .timeZone(separator: .omitted))
    }
}
