import Foundation
import JSONSupport
import NavigationPolicy

/// A replay input that cannot be read; the message names the file and line.
struct ReplayError: Error {
    var message: String
}

/// Streams the inputs `diff` replays, one line at a time.
enum ReplayInput {
    /// Calls `body` with each line's bytes (without its newline) and its 1-based number;
    /// memory stays at one line of at most ``BoundedLines/maximumLineBytes`` however long the
    /// file is, and a longer line is an error naming it.
    static func eachLine(_ path: String, _ body: (UnsafeBufferPointer<UInt8>, Int) throws(ReplayError) -> Void)
        throws(ReplayError)
    {
        guard let file = fopen(path, "r") else { throw ReplayError(message: "\(path): cannot be read") }
        defer { fclose(file) }
        try BoundedLines.each(in: file, name: path, body)
    }

    /// A `--urls` line as text: UTF-8 is required, as every JSON reader of the project requires it
    /// (a line that is not would be decided as something else than it says).
    static func text(_ line: UnsafeBufferPointer<UInt8>, path: String, line number: Int) throws(ReplayError) -> String {
        guard let text = String(validating: line, as: UTF8.self) else {
            throw ReplayError(message: "\(path):\(number): not valid UTF-8")
        }
        return text
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
    /// The line's bytes go to the JSON parser as they are, which refuses invalid UTF-8 like every
    /// other JSON reader here (issue 38, item 14: decoding them to a String first replaced it).
    static func logRequest(_ line: UnsafeBufferPointer<UInt8>, path: String, line number: Int) throws(ReplayError)
        -> LogEntry
    {
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
