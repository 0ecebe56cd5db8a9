import Foundation
import JSONSupport
import NavigationPolicy

/// A replay input that cannot be read; the message names the file and line.
struct ReplayError: Error {
    var message: String
}

/// Streams the inputs `diff` replays, one line at a time.
enum ReplayInput {
    /// Calls `body` with each line (without its newline) and its 1-based number; reads with
    /// `getline`, so memory stays at one line however long the file is.
    static func eachLine(_ path: String, _ body: (String, Int) throws(ReplayError) -> Void) throws(ReplayError) {
        guard let file = fopen(path, "r") else { throw ReplayError(message: "\(path): cannot be read") }
        defer { fclose(file) }
        var buffer: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(buffer) }
        var number = 0
        while true {
            let length = getline(&buffer, &capacity, file)
            guard length >= 0, let buffer else { break }
            number += 1
            var count = length
            if count > 0, buffer[count - 1] == 0x0A { count -= 1 }
            let line = buffer.withMemoryRebound(to: UInt8.self, capacity: count) {
                String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
            }
            try body(line, number)
        }
    }

    /// Why a decision-log line cannot be replayed exactly: its URLs are not the ones decided.
    enum Inexact: String, CaseIterable {
        /// `"redacted":true`: query values were replaced (`decisionLog.redactQueryParameters`).
        case redacted
        /// `"truncated":true`: URLs were cut to bound the line.
        case truncated
    }

    /// The reason a parsed decision-log line is not replayed, nil when it can be.
    static func inexact(_ line: JSONValue) -> Inexact? {
        Inexact.allCases.first { line.objectValue?[$0.rawValue] != nil }
    }

    /// One decision-log line as `diff` reads it.
    enum LogEntry {
        /// The navigation decided, and the policy revision that decided it.
        case replay(NavigationRequest, revision: String?)
        /// A line whose URLs are not the ones decided: counted, not replayed.
        case inexact(Inexact)
    }

    /// The request and policy revision of one decision-log line (`{"time":…,"request":{…},"revision":…}`),
    /// or why it is not replayed (``Inexact``).
    static func logRequest(_ line: String, path: String, line number: Int) throws(ReplayError) -> LogEntry {
        let value: JSONValue
        do {
            value = try JSONParser().parse(line)
        } catch {
            throw ReplayError(message: "\(path):\(number): not a JSON line: \(error)")
        }
        if let reason = inexact(value) { return .inexact(reason) }
        guard let request = value.objectValue?["request"]?.objectValue else {
            throw ReplayError(message: "\(path):\(number): no \"request\" object (is this a navpolicyd decision log?)")
        }
        do {
            return .replay(try NavigationRequest(json: request), revision: value.objectValue?["revision"]?.stringValue)
        } catch {
            throw ReplayError(message: "\(path):\(number): request.\(error.field): \(error.reason)")
        }
    }

    /// The requests of a test table (expectations are ignored: diff compares two policies).
    static func caseRequests(_ path: String) throws(ReplayError) -> [NavigationRequest] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ReplayError(message: "\(path): cannot be read")
        }
        let document: JSONValue
        do {
            document = try JSONParser().parse(data)
        } catch {
            throw ReplayError(message: "\(path): invalid JSON at \(error)")
        }
        switch PolicyTestCase.decodeAll(document) {
        case .success(let cases): return cases.map(\.request)
        case .failure(let error): throw ReplayError(message: "\(path) is malformed: \(error)")
        }
    }
}
