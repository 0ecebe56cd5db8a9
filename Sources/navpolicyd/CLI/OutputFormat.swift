import Foundation

/// `--format text|json`, shared by the commands that offer both.
enum OutputFormat {
    static func isJSON(_ parsed: ParsedArguments) throws(UsageError) -> Bool {
        switch parsed.value("format") {
        case nil, "text": return false
        case "json": return true
        case let other?: throw UsageError("--format takes text or json, not '\(other)'")
        }
    }

    /// Colour and progress lines only for a person at a terminal, never in pipes or files.
    static var isTerminal: Bool { isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil }
}

/// ANSI colours, or plain text when disabled.
struct TerminalStyle {
    var enabled: Bool
    func yellow(_ text: String) -> String { enabled ? "\u{1B}[33m\(text)\u{1B}[0m" : text }
    func green(_ text: String) -> String { enabled ? "\u{1B}[32m\(text)\u{1B}[0m" : text }
    func red(_ text: String) -> String { enabled ? "\u{1B}[31m\(text)\u{1B}[0m" : text }
}
