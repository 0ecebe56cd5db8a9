import Foundation
import Testing

/// The shell examples of README.md and docs/ that are marked as executed run against a live
/// daemon on the default config, and their output must be what the document shows.
///
/// A marked example is an HTML comment `<!-- executed -->` (invisible on GitHub) on the line
/// right before a ```` ```console ```` block. In the block, a line starting with `$ ` is a
/// command (a line ending in `\` continues it on the next line); the lines after it, up to
/// the next command, are its output (stdout and stderr, as a terminal shows them).
///
/// Before running, `localhost:8080` and `127.0.0.1:8080` become the test daemon's address and
/// `.build/release/navpolicyd` the binary under test; `navpolicyd` alone is found on `PATH`.
/// The working directory is the repository root. Then both the shown and the real output go
/// through ``ExecutedDocs/mask(_:)`` and must be equal line by line, where `…` in a shown line
/// stands for any text.
@Suite("Executed docs", .serialized)
struct ExecutedDocsTests {
    /// Every document that may hold marked examples.
    static let documents = [
        "README.md", "docs/api.md", "docs/cli.md", "docs/configuration.md", "docs/handlers.md", "docs/intake.md",
        "docs/operations.md", "docs/proxy.md", "docs/url-canonicalization.md",
    ]

    @Test("the marked examples of each document produce the output it shows", arguments: documents)
    func examples(document: String) throws {
        let text = try String(
            contentsOf: BinaryRunner.packageRoot.appendingPathComponent(document), encoding: .utf8)
        let examples = try ExecutedDocs.examples(in: text)
        guard !examples.isEmpty else { return }
        // One daemon per document, on the default config as `make run` starts it: the examples
        // of a page run in order against the same state (ids, stored shares).
        let daemon = try DaemonProcess(configPath: "config/navpolicy.json")
        for example in examples {
            let output = try ExecutedDocs.run(example.command, port: daemon.port)
            let mismatch = ExecutedDocs.compare(shown: example.output, actual: output)
            #expect(
                mismatch == nil,
                "\(document):\(example.line): $ \(example.command)\n\(mismatch ?? "")\n--- actual output ---\n\(output)")
        }
    }

    @Test("README and the API, CLI and operations guides have executed examples")
    func coverage() throws {
        for (document, minimum) in [("README.md", 3), ("docs/api.md", 8), ("docs/cli.md", 4), ("docs/operations.md", 1)] {
            let text = try String(
                contentsOf: BinaryRunner.packageRoot.appendingPathComponent(document), encoding: .utf8)
            #expect(try ExecutedDocs.examples(in: text).count >= minimum, "\(document)")
        }
    }

    @Test("the masks and the … wildcard accept what varies and nothing else")
    func masking() {
        let shown = """
            HTTP/1.1 200 OK
            Content-Length: 243
            X-Navigation-Decision-Id: 23bb7c98-000000000001

            {"decisionId":"23bb7c98-000000000001","policyRevision":"sha256:\(String(repeating: "b", count: 64))","loadedAt":"2026-11-29T21:20:28.366Z"}
            {"location":"http://127.0.0.1:18181/x","handlers":[…]}
            """
        let actual = """
            HTTP/1.1 200 OK\r
            Date: Tue, 01 Dec 2026 04:00:00 GMT\r
            Content-Length: 251\r
            X-Navigation-Decision-Id: 9f00aa11-000000000042\r
            \r
            {"decisionId":"9f00aa11-000000000042","policyRevision":"sha256:\(String(repeating: "c", count: 64))","loadedAt":"2026-12-01T04:00:00.001Z"}
            {"location":"http://127.0.0.1:40123/x","handlers":[{"position":1}]}

            """
        #expect(ExecutedDocs.compare(shown: shown, actual: actual) == nil)
        // What is not masked must match exactly.
        let changed = actual.replacingOccurrences(of: "200 OK", with: "201 Created")
        #expect(ExecutedDocs.compare(shown: shown, actual: changed) != nil)
        #expect(ExecutedDocs.compare(shown: shown, actual: actual + "extra line\n") != nil)
        #expect(ExecutedDocs.compare(shown: #"{"decision":"allow"}"#, actual: #"{"decision":"cancel"}"#) != nil)
    }

    @Test("marked blocks are parsed into commands, continuations and outputs")
    func parsing() throws {
        let text = """
            Intro.

            <!-- executed -->
            ```console
            $ curl -s localhost:8080/healthz
            {"status":"ok"}
            $ curl -s localhost:8080/v1/decide \\
                -d '{}'
            line one
            line two
            ```

            ```console
            $ not marked
            ```
            """
        let examples = try ExecutedDocs.examples(in: text)
        #expect(
            examples.map(\.command) == ["curl -s localhost:8080/healthz", "curl -s localhost:8080/v1/decide \\\n    -d '{}'"])
        #expect(examples.map(\.output) == [#"{"status":"ok"}"#, "line one\nline two"])
        #expect(examples.first?.line == 5)
        #expect(throws: ExecutedDocs.FormatError.self) { try ExecutedDocs.examples(in: "<!-- executed -->\n```sh\nx\n```") }
        #expect(throws: ExecutedDocs.FormatError.self) { try ExecutedDocs.examples(in: "<!-- executed -->\n```console\n$ x\n") }
    }
}

/// Finding, running and comparing the executed examples of a Markdown document.
enum ExecutedDocs {
    /// One command of a marked block and the output the document shows for it.
    struct Example: Equatable {
        var command: String
        var output: String
        /// 1-based line of the `$ ` line in the document.
        var line: Int
    }

    struct FormatError: Error, CustomStringConvertible {
        var description: String
    }

    static let marker = "<!-- executed -->"

    static func examples(in text: String) throws(FormatError) -> [Example] {
        let lines = text.components(separatedBy: "\n")
        var examples: [Example] = []
        var index = 0
        while index < lines.count {
            defer { index += 1 }
            guard lines[index].trimmingCharacters(in: .whitespaces) == marker else { continue }
            guard index + 1 < lines.count, lines[index + 1] == "```console" else {
                throw FormatError(description: "line \(index + 1): \(marker) must come right before a ```console block")
            }
            index += 2
            var current: (command: String, output: [String], line: Int)?
            var continues = false
            var closed = false
            func finish() {
                if let done = current {
                    let output = done.output.joined(separator: "\n").trimmingTrailingEmptyLines
                    examples.append(Example(command: done.command, output: output, line: done.line))
                }
            }
            while index < lines.count {
                let line = lines[index]
                if line == "```" {
                    closed = true
                    break
                }
                if continues, current != nil {
                    current?.command += "\n" + line
                    continues = line.hasSuffix("\\")
                } else if line.hasPrefix("$ ") {
                    finish()
                    current = (String(line.dropFirst(2)), [], index + 1)
                    continues = line.hasSuffix("\\")
                } else if current != nil {
                    current?.output.append(line)
                } else {
                    throw FormatError(description: "line \(index + 1): a marked block must start with a `$ ` command")
                }
                index += 1
            }
            guard closed else { throw FormatError(description: "line \(index): unterminated ```console block") }
            finish()
        }
        return examples
    }
    /// Runs `command` with bash in the repository root against the daemon on `port`.
    static func run(_ command: String, port: Int) throws -> String {
        let rewritten =
            command
            .replacingOccurrences(of: "localhost:8080", with: "127.0.0.1:\(port)")
            .replacingOccurrences(of: "127.0.0.1:8080", with: "127.0.0.1:\(port)")
            .replacingOccurrences(of: ".build/release/navpolicyd", with: BinaryRunner.binary.path)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", rewritten]
        process.currentDirectoryURL = BinaryRunner.packageRoot
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] =
            BinaryRunner.binary.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        for name in ["NAVPOLICY_CONFIG", "NAVPOLICY_ADMIN_TOKEN", "NAVPOLICY_INTAKE_TOKEN", "http_proxy", "HTTP_PROXY"] {
            environment.removeValue(forKey: name)
        }
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// What differs between runs, replaced by a placeholder: decision ids, revisions, times,
    /// loopback ports and `Content-Length` (which follows from the others). `Date` header
    /// lines are dropped before masking (see ``compare(shown:actual:)``).
    static let masks: [(pattern: String, replacement: String)] = [
        (#"sha256:[0-9a-f]{64}"#, "sha256:<revision>"),
        (#""decisionId":"[^"]*""#, #""decisionId":"<id>""#),
        (#"(?i)(X-Navigation-Decision-Id: )\S+"#, "$1<id>"),
        (#"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z"#, "<time>"),
        (#"(127\.0\.0\.1|localhost):\d+"#, "127.0.0.1:<port>"),
        (#"(?i)(Content-Length: )\d+"#, "$1<n>"),
    ]

    static func mask(_ line: String) -> String {
        var line = line
        if line.hasSuffix("\r") { line.removeLast() }
        for (pattern, replacement) in masks {
            line = line.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        return line
    }

    /// nil when `actual` is what `shown` shows; otherwise the first difference.
    static func compare(shown: String, actual: String) -> String? {
        // The docs leave the `Date` header out of HTTP answers: it only ever differs.
        func lines(_ text: String) -> [String] {
            text.replacingOccurrences(of: "\r\n", with: "\n").trimmingTrailingEmptyLines.components(separatedBy: "\n")
                .filter { !$0.lowercased().hasPrefix("date: ") }.map(mask)
        }
        let expected = lines(shown)
        let received = lines(actual)
        for (number, pair) in zip(expected, received).enumerated() where !matches(shown: pair.0, actual: pair.1) {
            return "output line \(number + 1): shown  \(pair.0)\n                got    \(pair.1)"
        }
        guard expected.count == received.count else {
            return "the doc shows \(expected.count) output lines, the command printed \(received.count)"
        }
        return nil
    }

    /// Equal, where each `…` in `shown` stands for any text (possibly empty).
    static func matches(shown: String, actual: String) -> Bool {
        let pieces = shown.components(separatedBy: "…")
        guard pieces.count > 1 else { return shown == actual }
        var rest = Substring(actual)
        for (position, piece) in pieces.enumerated() {
            if position == 0 {
                guard rest.hasPrefix(piece) else { return false }
                rest = rest.dropFirst(piece.count)
            } else if position == pieces.count - 1 {
                return piece.isEmpty || rest.hasSuffix(piece)
            } else if let range = rest.range(of: piece) {
                rest = rest[range.upperBound...]
            } else {
                return false
            }
        }
        return true
    }
}

extension String {
    fileprivate var trimmingTrailingEmptyLines: String {
        var text = self
        while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
        return text
    }
}
