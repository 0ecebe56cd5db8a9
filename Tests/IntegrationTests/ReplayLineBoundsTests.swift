import Foundation
import TestScratchSupport
import Testing

/// Issue 38, items 13 and 14: `diff --log` and `canonicalize --ndjson` held a whole line however
/// long (one 400 MB line took 1.59 GB though the docs promise flat memory), and `diff --log`
/// took invalid UTF-8 that every other JSON reader refuses. Through the binary.
@Suite("replay inputs: line length and UTF-8, through the binary")
struct ReplayLineBoundsTests {
    static let candidate = #"{"handlers": [{"name": "admin", "type": "cancel", "match": {"pathPatterns": ["/admin/*"]}}]}"#

    /// A decision-log line for `url`, padded with a member of `padding` bytes that replays ignore.
    static func logLine(_ url: String, padding: Int = 0) -> String {
        let pad = String(repeating: "p", count: padding)
        return
            #"{"time":"t","pad":"\#(pad)","decisionId":"1","request":{"url":"\#(url)"},"decision":{},"handler":null,"revision":"r"}"#
    }

    /// Writes `bytes` to a fresh scratch file.
    static func file(_ bytes: [UInt8], suffix: String) throws -> String {
        let path = TestScratch.path("replay-lines", suffix: suffix)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("diff --log and --urls stop at a line over 1 MiB with exit 2 and its line number")
    func longLines() throws {
        let candidate = try BinaryRunner.temporaryFile(Self.candidate)
        let long = Self.logLine("https://a.example/admin/x", padding: 2 << 20)
        let log = try Self.file(Array((Self.logLine("https://a.example/x") + "\n" + long + "\n").utf8), suffix: ".ndjson")
        let replay = try BinaryRunner.run(["diff", "--config", candidate, "--log", log])
        #expect(replay.status == 2, "\(replay.stdout.prefix(200))")
        #expect(replay.stderr.contains("\(log):2: line longer than 1048576 bytes"), "\(replay.stderr.prefix(300))")
        // A line just under the bound is read.
        let fits = Self.logLine("https://a.example/admin/x", padding: (1 << 20) - 200)
        let fitting = try Self.file(Array((fits + "\n").utf8), suffix: ".ndjson")
        #expect(try BinaryRunner.run(["diff", "--config", candidate, "--log", fitting]).status == 0)

        let urls = try Self.file(Array(("https://a.example/\n" + String(repeating: "u", count: 2 << 20)).utf8), suffix: ".txt")
        let urlReplay = try BinaryRunner.run(["diff", "--config", candidate, "--urls", urls])
        #expect(urlReplay.status == 2)
        #expect(urlReplay.stderr.contains("\(urls):2: line longer than 1048576 bytes"), "\(urlReplay.stderr.prefix(300))")
    }

    @Test("diff --log and --urls refuse invalid UTF-8 with exit 2 and the line, as every JSON reader does")
    func invalidUTF8() throws {
        let candidate = try BinaryRunner.temporaryFile(Self.candidate)
        let good = Array((Self.logLine("https://a.example/x") + "\n").utf8)
        let bad = Array(Self.logLine("https://a.example/admin/\u{1}").utf8).map { $0 == 0x01 ? 0xFF : $0 } + [0x0A]
        let log = try Self.file(good + bad, suffix: ".ndjson")
        let replay = try BinaryRunner.run(["diff", "--config", candidate, "--log", log])
        #expect(replay.status == 2, "\(replay.stdout)")
        #expect(replay.stderr.contains("\(log):2: not a JSON line: "), "\(replay.stderr)")
        #expect(replay.stderr.contains("not valid UTF-8"), "\(replay.stderr)")
        let urls = try Self.file(Array("https://a.example/\n".utf8) + [0x68, 0x74, 0xC3, 0x0A], suffix: ".txt")
        let urlReplay = try BinaryRunner.run(["diff", "--config", candidate, "--urls", urls])
        #expect(urlReplay.status == 2)
        #expect(urlReplay.stderr.contains("\(urls):2: not valid UTF-8"), "\(urlReplay.stderr)")
    }

    @Test("canonicalize --ndjson stops at a line over 1 MiB with exit 2; invalid UTF-8 is an error line")
    func canonicalizeLines() throws {
        let long = "\"https://a.example/" + String(repeating: "a", count: 2 << 20) + "\""
        let input = try Self.file(
            Array("\"https://a.example/x\"\n".utf8) + [0x22, 0x68, 0xFF, 0x22, 0x0A] + Array((long + "\n").utf8),
            suffix: ".ndjson")
        // Through a shell redirection: the binary stops reading, so nothing may write into its pipe.
        let result = try BinaryRunner.run(
            ["-c", #""$0" canonicalize --ndjson < "$1""#, BinaryRunner.binary.path, input],
            executable: URL(fileURLWithPath: "/bin/sh"))
        #expect(result.status == 2, "\(result.stdout.prefix(300))")
        #expect(result.stderr.contains("stdin:3: line longer than 1048576 bytes"), "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 2, "\(result.stdout.prefix(300))")
        #expect(lines.first?.contains(#""href":"https://a.example/x""#) == true)
        #expect(lines.last == #"{"error":"input line is not a JSON string"}"#)
    }
}
