import Foundation
import TestScratchSupport
import Testing

/// Every shell example of README.md and docs/ runs against a live daemon on the default config,
/// and its output must be what the document shows: a document cannot drift from the program.
///
/// Every ```` ```console ```` block (indented ones in lists too) is run. A block that cannot run
/// in the suite (it needs systemd, Kubernetes, the network, root, or a second daemon with other
/// flags) says so and why on the line right before it: `<!-- not executed: REASON -->`; the
/// reason is required. `<!-- executed -->` there is accepted and changes nothing.
///
/// In a block, a line starting with `$ ` is a command (a line ending in `\` continues it on the
/// next line); the lines after it, up to the next command, are its output (stdout and stderr, as
/// a terminal shows them). A fenced block of any language right after `<!-- file: NAME -->` is
/// written to `NAME` in the working directory before the document's next command runs, so the
/// config files an example uses are the ones the page shows.
///
/// Before running, `localhost:8080` and `127.0.0.1:8080` become the test daemon's address and
/// `.build/release/navpolicyd` the binary under test; `navpolicyd` alone is found on `PATH`.
/// The working directory is a scratch directory per document that links every top-level entry
/// of the repository (so `config/navpolicy.json` is the default config) and holds the document's
/// files. Then both the shown and the real output go through ``ExecutedDocs/mask(_:)`` and must
/// be equal line by line, where `…` in a shown line stands for any text.
@Suite("Executed docs", .serialized)
struct ExecutedDocsTests {
    /// README.md and every Markdown file under docs/, found rather than listed, so a new page
    /// is covered the day it is written.
    static let documents: [String] = {
        let root = BinaryRunner.packageRoot
        let enumerator = FileManager.default.enumerator(atPath: root.appendingPathComponent("docs").path)
        var found: [String] = []
        while let path = enumerator?.nextObject() as? String {
            if path.hasSuffix(".md") { found.append("docs/" + path) }
        }
        return ["README.md"] + found.sorted()
    }()

    @Test("the examples of each document produce the output it shows", arguments: documents)
    func examples(document: String) throws {
        let text = try String(
            contentsOf: BinaryRunner.packageRoot.appendingPathComponent(document), encoding: .utf8)
        let parsed = try ExecutedDocs.parse(text)
        guard !parsed.examples.isEmpty else { return }
        // One daemon per document, on the default config as `make run` starts it: the examples
        // of a page run in order against the same state (ids, stored shares).
        let daemon = try DaemonProcess(configPath: "config/navpolicy.json")
        let directory = try ExecutedDocs.workingDirectory(for: document)
        for example in parsed.examples {
            for file in example.files {
                try Data(file.contents.utf8).write(to: directory.appendingPathComponent(file.name))
            }
            let output = try ExecutedDocs.run(example.command, port: daemon.port, in: directory)
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
            #expect(try ExecutedDocs.parse(text).examples.count >= minimum, "\(document)")
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

    @Test("every console block is parsed into commands, continuations and outputs; files and opt-outs are read")
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

            <!-- file: a.json -->
            ```json
            {"handlers": []}
            ```

            1. In a list:
               ```console
               $ not marked
               ```

            <!-- not executed: needs systemd -->
            ```console
            $ systemctl reload navpolicyd
            ```
            """
        let parsed = try ExecutedDocs.parse(text)
        #expect(
            parsed.examples.map(\.command) == [
                "curl -s localhost:8080/healthz", "curl -s localhost:8080/v1/decide \\\n    -d '{}'", "not marked",
            ])
        #expect(parsed.examples.map(\.output) == [#"{"status":"ok"}"#, "line one\nline two", ""])
        #expect(parsed.examples.first?.line == 5)
        #expect(parsed.examples.map(\.files.count) == [0, 0, 1])
        #expect(parsed.examples.last?.files.first?.name == "a.json")
        #expect(parsed.examples.last?.files.first?.contents == #"{"handlers": []}"# + "\n")
        #expect(parsed.skipped.map(\.reason) == ["needs systemd"])
        #expect(throws: ExecutedDocs.FormatError.self) { try ExecutedDocs.parse("<!-- executed -->\n```sh\nx\n```") }
        #expect(throws: ExecutedDocs.FormatError.self) { try ExecutedDocs.parse("<!-- executed -->\n```console\n$ x\n") }
        #expect(throws: ExecutedDocs.FormatError.self) { try ExecutedDocs.parse("```console\nno command\n```") }
        // An opt-out must say why, and only a console block can be opted out.
        #expect(throws: ExecutedDocs.FormatError.self) { try ExecutedDocs.parse("<!-- not executed: -->\n```console\n$ x\n```") }
        #expect(throws: ExecutedDocs.FormatError.self) { try ExecutedDocs.parse("<!-- not executed: y -->\n```json\n{}\n```") }
        #expect(throws: ExecutedDocs.FormatError.self) { try ExecutedDocs.parse("<!-- file: ../x -->\n```json\n{}\n```") }
    }
}

/// Finding, running and comparing the examples of a Markdown document.
enum ExecutedDocs {
    /// One command of a console block and the output the document shows for it.
    struct Example: Equatable {
        var command: String
        var output: String
        /// 1-based line of the `$ ` line in the document.
        var line: Int
        /// Files declared (`<!-- file: NAME -->`) since the previous command, written before this one runs.
        var files: [File] = []
    }

    /// A fenced block the document declares as a file of the working directory.
    struct File: Equatable {
        var name: String
        var contents: String
    }

    /// A console block the document opts out, with its reason.
    struct Skipped: Equatable {
        var line: Int
        var reason: String
    }

    struct Parsed {
        var examples: [Example] = []
        var skipped: [Skipped] = []
    }

    struct FormatError: Error, CustomStringConvertible {
        var description: String
    }

    static let marker = "<!-- executed -->"
    static let optOutPrefix = "<!-- not executed:"
    static let filePrefix = "<!-- file:"

    /// Every console block's commands, the declared files and the opt-outs of `text`.
    static func parse(_ text: String) throws(FormatError) -> Parsed {
        let lines = text.components(separatedBy: "\n")
        var parsed = Parsed()
        var pendingFiles: [File] = []
        var index = 0
        while index < lines.count {
            defer { index += 1 }
            let trimmed = lines[index].trimmingCharacters(in: .whitespaces)
            let isAnnotation = trimmed == marker || trimmed.hasPrefix(optOutPrefix) || trimmed.hasPrefix(filePrefix)
            guard isAnnotation || trimmed.hasPrefix("```") else { continue }
            // An annotation belongs to the fence on the next line; a bare fence has none.
            let annotation = isAnnotation ? trimmed : nil
            let fenceIndex = isAnnotation ? index + 1 : index
            guard fenceIndex < lines.count, lines[fenceIndex].trimmingCharacters(in: .whitespaces).hasPrefix("```") else {
                throw FormatError(description: "line \(index + 1): \(trimmed) must come right before a fenced block")
            }
            let fence = lines[fenceIndex]
            let indent = fence.prefix { $0 == " " }.count
            let language = fence.trimmingCharacters(in: .whitespaces).dropFirst(3)
            var body: [String] = []
            var end = fenceIndex + 1
            while end < lines.count, lines[end].trimmingCharacters(in: .whitespaces) != "```" {
                body.append(String(lines[end].dropFirst(min(indent, lines[end].prefix { $0 == " " }.count))))
                end += 1
            }
            guard end < lines.count else {
                throw FormatError(description: "line \(fenceIndex + 1): unterminated ``` block")
            }
            index = end
            if let annotation, annotation.hasPrefix(filePrefix) {
                let name = annotation.dropFirst(filePrefix.count).dropLast(3).trimmingCharacters(in: .whitespaces)
                guard !name.isEmpty, !name.contains("/"), annotation.hasSuffix("-->") else {
                    throw FormatError(description: "line \(index + 1): a file name without / is needed: \(annotation)")
                }
                pendingFiles.append(File(name: name, contents: body.map { $0 + "\n" }.joined()))
                continue
            }
            guard language == "console" else {
                if annotation != nil {
                    throw FormatError(description: "line \(fenceIndex): \(annotation ?? "") must come before a ```console block")
                }
                continue
            }
            if let annotation, annotation.hasPrefix(optOutPrefix) {
                let reason = annotation.dropFirst(optOutPrefix.count).dropLast(3).trimmingCharacters(in: .whitespaces)
                guard !reason.isEmpty, annotation.hasSuffix("-->") else {
                    throw FormatError(description: "line \(fenceIndex): \(optOutPrefix) must say why the block cannot run")
                }
                parsed.skipped.append(Skipped(line: fenceIndex + 1, reason: reason))
                continue
            }
            let examples = try commands(body, firstLine: fenceIndex + 2)
            if var first = examples.first {
                first.files = pendingFiles
                pendingFiles = []
                parsed.examples.append(first)
                parsed.examples += examples.dropFirst()
            }
        }
        return parsed
    }

    /// The commands of one console block's lines (the first of them at document line `firstLine`).
    private static func commands(_ lines: [String], firstLine: Int) throws(FormatError) -> [Example] {
        var examples: [Example] = []
        var current: (command: String, output: [String], line: Int)?
        var continues = false
        func finish() {
            if let done = current {
                let output = done.output.joined(separator: "\n").trimmingTrailingEmptyLines
                examples.append(Example(command: done.command, output: output, line: done.line))
            }
        }
        for (offset, line) in lines.enumerated() {
            if continues, current != nil {
                current?.command += "\n" + line
                continues = line.hasSuffix("\\")
            } else if line.hasPrefix("$ ") {
                finish()
                current = (String(line.dropFirst(2)), [], firstLine + offset)
                continues = line.hasSuffix("\\")
            } else if current != nil {
                current?.output.append(line)
            } else {
                throw FormatError(description: "line \(firstLine + offset): a console block must start with a `$ ` command")
            }
        }
        finish()
        return examples
    }

    /// A fresh directory linking every top-level entry of the repository, for one document.
    static func workingDirectory(for document: String) throws -> URL {
        let directory = URL(fileURLWithPath: TestScratch.path("docs-" + document.replacingOccurrences(of: "/", with: "-")))
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let root = BinaryRunner.packageRoot
        for entry in try FileManager.default.contentsOfDirectory(atPath: root.path) where !entry.hasPrefix(".") {
            try FileManager.default.createSymbolicLink(
                at: directory.appendingPathComponent(entry), withDestinationURL: root.appendingPathComponent(entry))
        }
        return directory
    }

    /// Runs `command` with bash in `directory` against the daemon on `port`.
    static func run(_ command: String, port: Int, in directory: URL) throws -> String {
        let rewritten =
            command
            .replacingOccurrences(of: "localhost:8080", with: "127.0.0.1:\(port)")
            .replacingOccurrences(of: "127.0.0.1:8080", with: "127.0.0.1:\(port)")
            .replacingOccurrences(of: ".build/release/navpolicyd", with: BinaryRunner.binary.path)
        let process = Process()
        // Bounded: an example that starts a daemon by mistake (a start-up check that no longer
        // refuses) fails the test with its output instead of hanging the suite.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = ["60", "/bin/bash", "-c", rewritten]
        process.currentDirectoryURL = directory
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
