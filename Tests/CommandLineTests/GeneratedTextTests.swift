import Foundation
import NavpolicydCommands
import Synchronization
import Testing

/// Help, the man page, completions and terminal styling, all derived from the declarations.
@Suite("Generated help, man page and completions")
struct GeneratedTextTests {
    /// Runs a command line in-process and returns stdout, stderr and the status.
    private func run(_ arguments: [String], colour: Bool = false) -> (status: Int32, out: String, err: String) {
        let out = Mutex("")
        let err = Mutex("")
        let output = Output(
            writeOut: { line in out.withLock { $0 += line + "\n" } }, writeErr: { line in err.withLock { $0 += line + "\n" } },
            usesColour: colour)
        let status = CommandLineTool.run(arguments, output: output)
        return (status, out.withLock { $0 }, err.withLock { $0 })
    }

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let shippedConfig = packageRoot.appendingPathComponent("config/navpolicy.json").path

    @Test("every command's help is generated from its declaration: usage, every option and its help")
    func helpFromDeclarations() {
        for declaration in CommandLineTool.declarations {
            let help = HelpText.render(declaration)
            // Wrapping moves words between lines, so the help of each option is looked for in the flowed text.
            let flowed = help.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(help.hasPrefix("Usage: navpolicyd \(declaration.name)"))
            for option in declaration.allOptions {
                #expect(help.contains(option.synopsis), "\(declaration.name) \(option.longForm)")
                #expect(
                    flowed.contains(option.help.split(whereSeparator: \.isWhitespace).joined(separator: " ")),
                    "\(option.longForm)")
                if let value = option.defaultValue { #expect(flowed.contains("(default: \(value))")) }
            }
            #expect(help.split(separator: "\n").allSatisfy { $0.count <= 100 }, "\(declaration.name): lines fit 100 columns")
            let viaFlag = run([declaration.name, "--help"])
            #expect(viaFlag.status == 0 && viaFlag.out == help + "\n")
            #expect(run(["help", declaration.name]).out == viaFlag.out)
        }
    }

    @Test("a new option appears in the synopsis, the options list, the man page and every completion script")
    func oneDeclarationFeedsEverything() {
        var declaration = CommandDeclaration(
            name: "demo", summary: "A demo", discussion: "Demo.", notes: "", options: [],
            positional: PositionalDeclaration(name: "FILE", help: "a file", arity: .exactlyOne, kind: .file, missingMessage: "x"))
        declaration.options.append(
            OptionDeclaration(
                name: "colour-mode", placeholder: "MODE", kind: .choice(["auto", "always"]), help: "when to colour"))
        #expect(HelpText.usage(declaration) == "Usage: navpolicyd demo [--colour-mode MODE] [--] FILE")
        #expect(HelpText.render(declaration).contains("  --colour-mode MODE  when to colour"))
        #expect(CommandLineTool.manPage([declaration]).contains(#"\fB\-\-colour\-mode\fR \fIMODE\fR"#))
        #expect(CommandLineTool.completionScript(.bash, [declaration]).contains("compgen -W 'auto always'"))
        #expect(
            CommandLineTool.completionScript(.zsh, [declaration]).contains("'--colour-mode[when to colour]:MODE:(auto always)'"))
        #expect(CommandLineTool.completionScript(.fish, [declaration]).contains("-l colour-mode -x -a 'auto always'"))
    }

    @Test("the bash completion script parses and completes commands, flags and flag values")
    func bashCompletion() throws {
        let script = run(["completions", "bash"])
        #expect(script.status == 0)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("navpolicyd-completion-\(UUID()).bash")
        try Data(script.out.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try Shell.run("bash", ["-n", file.path]).status == 0)
        func complete(_ words: [String]) throws -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let program = """
                source '\(file.path)'
                COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1)
                _navpolicyd
                printf '%s\\n' "${COMPREPLY[@]}"
                """
            let result = try Shell.run("bash", ["-c", program])
            return result.out.split(separator: "\n").map(String.init)
        }
        #expect(try complete(["navpolicyd", "c"]) == ["check", "compile", "canonicalize", "completions"])
        #expect(try complete(["navpolicyd", "check", "--nav"]) == ["--navigation-type"])
        #expect(try complete(["navpolicyd", "check", "--navigation-type", "f"]) == ["formSubmitted", "formResubmitted"])
        #expect(try complete(["navpolicyd", "serve", "--log-level", ""]) == ["debug", "info", "warning", "error"])
        #expect(try complete(["navpolicyd", "validate", "--"]).contains("--strict"))
        #expect(try complete(["navpolicyd", "completions", "z"]) == ["zsh"])
        let registered = try Shell.run("bash", ["-c", "source '\(file.path)'; complete -p navpolicyd"])
        #expect(registered.out.contains("complete -F _navpolicyd navpolicyd"))
    }

    @Test("the zsh and fish scripts pass their shells' syntax checks")
    func zshAndFish() throws {
        for (shell, arguments) in [("zsh", ["-n"]), ("fish", ["--no-execute"])] {
            let script = run(["completions", shell])
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("navpolicyd-completion-\(UUID()).\(shell)")
            try Data(script.out.utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let checked = try Shell.run(shell, arguments + [file.path])
            #expect(checked.status == 0, "\(shell): \(checked.err)")
        }
    }

    @Test("help --man writes roff that man renders without warnings")
    func manPage() throws {
        let page = run(["help", "--man"])
        #expect(page.status == 0)
        #expect(page.out.hasPrefix(".TH NAVPOLICYD 1"))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("navpolicyd-\(UUID()).1")
        try Data(page.out.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let rendered = try Shell.run(
            "man", ["--warnings", "-l", file.path], environment: ["MANWIDTH": "80", "LC_ALL": "C.UTF-8", "MANPAGER": "cat"])
        #expect(rendered.status == 0)
        #expect(rendered.err.isEmpty, "groff warnings: \(rendered.err)")
        for declaration in CommandLineTool.declarations {
            #expect(rendered.out.contains("navpolicyd \(declaration.name)"))
        }
        #expect(rendered.out.contains("--log-level LEVEL"))
    }

    @Test("the systemd steps and the container image install the generated man page and bash completion")
    func installedByDeploySteps() throws {
        for file in ["deploy/systemd/README.md", "deploy/container/Containerfile"] {
            let text = try String(contentsOf: Self.packageRoot.appendingPathComponent(file), encoding: .utf8)
            #expect(text.contains("navpolicyd help --man >") || text.contains("navpolicyd help --man |"), "\(file)")
            #expect(text.contains("navpolicyd completions bash"), "\(file)")
            #expect(text.contains("share/man/man1/navpolicyd.1"), "\(file)")
            #expect(text.contains("share/bash-completion/completions/navpolicyd"), "\(file)")
        }
    }

    @Test("text output is coloured only when the output is a terminal")
    func colour() {
        let plain = run(["validate", "--config", Self.shippedConfig])
        #expect(plain.status == 0)
        #expect(!plain.out.contains("\u{1B}["))
        let coloured = run(["validate", "--config", Self.shippedConfig], colour: true)
        #expect(coloured.out.contains("\u{1B}[32mvalid\u{1B}[0m"))
        let check = run(
            ["check", "--config", Self.shippedConfig, "--format", "text", "https://app.example.com/logout"], colour: true)
        #expect(check.out.contains("\u{1B}[31mcancel\u{1B}[0m"))
    }

    @Test("a config's own bytes in validate's errors reach the terminal escaped (no escape sequences, no NUL)")
    func configIssuesEscaped() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("escape-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try #"{"handlers": [], "\u001b[31mred\u0007": {"x": "\u0000"}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        let result = run(["validate", "--config", path])
        #expect(result.status != 0)
        #expect(result.err.contains(#"\u{1B}[31mred\u{7}"#), "\(result.err.debugDescription)")
        #expect(!result.err.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(result.err.debugDescription)")
    }

    @Test("bench shows progress only where progress is shown (a terminal), and keeps stdout clean either way")
    func progress() {
        for shows in [false, true] {
            let progress = Mutex("")
            let out = Mutex("")
            let output = Output(
                writeOut: { line in out.withLock { $0 += line + "\n" } }, writeErr: { _ in },
                writeProgress: { text in progress.withLock { $0 += text } }, showsProgress: shows)
            let status = CommandLineTool.run(["bench", "--config", Self.shippedConfig, "--iterations", "70000"], output: output)
            #expect(status == 0)
            let written = progress.withLock { $0 }
            if shows {
                #expect(written.contains("65536 decisions…"))
                #expect(written.hasSuffix("\r\u{1B}[K"), "the progress line is cleared at the end")
            } else {
                #expect(written.isEmpty)
            }
            #expect(!out.withLock { $0 }.contains("decisions…"))
        }
    }

    @Test("check, test and canonicalize --format: text for people, JSON for machines, defaults unchanged")
    func formats() throws {
        let config = Self.shippedConfig
        let text = run(["check", "--config", config, "--format", "text", "https://app.example.com/logout"])
        #expect(
            text.out
                == "decision cancel\nhandler  logout\naction   logout\nlocation -\nurl      https://app.example.com/logout\n")
        let json = run(["check", "--config", config, "https://app.example.com/logout"])
        #expect(json.out.hasPrefix(#"{"decision":"cancel","handler":"logout""#))
        let canonical = run(["canonicalize", "--format", "text", "HTTPS://A.example/%6Cogout"])
        #expect(canonical.out.contains("matchPath  /logout\n"))
        let cases = FileManager.default.temporaryDirectory.appendingPathComponent("navpolicyd-cases-\(UUID()).json")
        try Data(#"[{"url":"https://a.example/logout","expect":{"decision":"allow"}}]"#.utf8).write(to: cases)
        defer { try? FileManager.default.removeItem(at: cases) }
        let report = run(["test", "--config", config, "--format", "json", cases.path])
        #expect(report.status == 1)
        #expect(
            report.out.hasPrefix(
                ##"{"passed":0,"failed":1,"failures":[{"name":"#0","url":"https://a.example/logout","problems":["decision: expected \"allow\", got \"cancel\""]"##
            ))
    }
}

/// Runs a program from PATH to completion.
enum Shell {
    static func run(_ program: String, _ arguments: [String], environment: [String: String] = [:]) throws -> (
        status: Int32, out: String, err: String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }
}
