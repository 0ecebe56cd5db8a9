import Foundation
import TestScratchSupport
import Testing

/// Issue 38, item 13: `bundle inspect` and `check --bundle` printed control bytes from an
/// untrusted bundle to the terminal, and `inspect` exited 0 on a bundle whose policy is
/// invalid. Through the binary, on an unsigned bundle edited the way an attacker would.
@Suite("bundle output is terminal-safe, through the binary")
struct BundleTerminalSafetyTests {
    /// A bundle of a one-handler policy with `edit` applied to its bytes.
    static func editedBundle(_ edit: (String) -> String) throws -> String {
        let config = try BinaryRunner.temporaryFile(
            #"{"defaultDecision": "allow", "handlers": [{"name": "admin", "type": "cancel", "match": {"hosts": ["admin.example"]}}]}"#
        )
        let path = TestScratch.path("terminal-bundle", suffix: ".json")
        let written = try BinaryRunner.run(["bundle", "--config", config, "--output", path])
        #expect(written.status == 0, "\(written.stderr)")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let changed = edit(text)
        #expect(changed != text, "the edit did not apply to \(text)")
        try Data(changed.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// No ESC, BEL or bidi override reaches the terminal.
    static func isTerminalSafe(_ text: String) -> Bool {
        !text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E }
    }

    @Test("inspect escapes control characters and exits 2 when the policy does not compile")
    func inspectEscapesAndRefuses() throws {
        let escape = #"\u001b]0;pwned\u0007\u202Eallow"#
        let path = try Self.editedBundle { $0.replacing(#""defaultDecision":"allow""#, with: #""defaultDecision":"\#(escape)""#) }
        let inspected = try BinaryRunner.run(["bundle", "inspect", path])
        #expect(inspected.status == 2, "an invalid policy is invalid input: \(inspected.stdout)")
        #expect(
            Self.isTerminalSafe(inspected.stdout) && Self.isTerminalSafe(inspected.stderr), "\(inspected.stdout.debugDescription)"
        )
        #expect(inspected.stdout.contains(#"defaultDecision: \u{1B}]0;pwned\u{7}\u{202E}allow"#), "\(inspected.stdout)")
        #expect(inspected.stderr.contains("its policy does not compile, so an app refuses it"), "\(inspected.stderr)")

        // JSON escapes the controls itself (a bidi mark is text to a JSON reader).
        let json = try BinaryRunner.run(["bundle", "inspect", path, "--format", "json"])
        #expect(json.status == 2)
        #expect(!json.stdout.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(json.stdout.debugDescription)")
        #expect(Self.isTerminalSafe(json.stderr))
    }

    @Test("check --bundle escapes what the refusal quotes from the bundle")
    func checkEscapesRefusal() throws {
        let path = try Self.editedBundle {
            $0.replacing(#""type":"cancel""#, with: #""type":"\u001b[2J\u001b[31mcancel""#)
        }
        let checked = try BinaryRunner.run(["check", "--bundle", path, "https://admin.example/"])
        #expect(checked.status == 2, "\(checked.stdout)")
        #expect(Self.isTerminalSafe(checked.stderr), "\(checked.stderr.debugDescription)")
        #expect(checked.stderr.contains(#"\u{1B}[2J"#), "\(checked.stderr)")
        let inspected = try BinaryRunner.run(["bundle", "inspect", path])
        #expect(inspected.status == 2)
        #expect(Self.isTerminalSafe(inspected.stderr), "\(inspected.stderr.debugDescription)")
    }

    @Test("inspect exits 2 on a compiled bundle whose image an app refuses")
    func compiledBundleImageRefused() throws {
        let config = try BinaryRunner.temporaryFile(
            #"{"handlers": [{"name": "a", "type": "cancel", "match": {"hosts": ["a.example"]}}]}"#)
        let path = TestScratch.path("terminal-compiled", suffix: ".bundle")
        let written = try BinaryRunner.run(["bundle", "--config", config, "--compiled", "--output", path])
        #expect(written.status == 0, "\(written.stderr)")
        #expect(try BinaryRunner.run(["bundle", "inspect", path]).status == 0)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let imageStart = try #require(bytes.firstIndex(of: 0x0A)) + 1
        bytes[imageStart + 8] = 9  // the image's format version
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let inspected = try BinaryRunner.run(["bundle", "inspect", path])
        #expect(inspected.status == 2, "\(inspected.stdout)")
        #expect(inspected.stderr.contains("compiled policy image refused: format version 9"), "\(inspected.stderr)")
    }

    @Test("a valid bundle still inspects with exit 0")
    func validBundle() throws {
        let path = try Self.editedBundle { $0.replacing("admin.example", with: "other.example") }
        let inspected = try BinaryRunner.run(["bundle", "inspect", path])
        #expect(inspected.status == 0, "\(inspected.stderr)")
        #expect(inspected.stdout.contains("handlers: 1"))
    }
}
