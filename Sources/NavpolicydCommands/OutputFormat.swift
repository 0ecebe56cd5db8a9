/// `--format text|json`, declared once for the commands that offer both.
package enum OutputFormat: String, Sendable {
    case text, json

    /// The option, with the command's default (each keeps the output it always had).
    static func option(default defaultFormat: OutputFormat, text: String) -> Option<String> {
        .text(
            "format", "text|json", kind: .choice(["text", "json"]), help: "text (\(text)) or json",
            default: defaultFormat.rawValue)
    }
}

/// ANSI colours, or plain text when disabled.
struct TerminalStyle {
    var enabled: Bool
    func yellow(_ text: String) -> String { enabled ? "\u{1B}[33m\(text)\u{1B}[0m" : text }
    func green(_ text: String) -> String { enabled ? "\u{1B}[32m\(text)\u{1B}[0m" : text }
    func red(_ text: String) -> String { enabled ? "\u{1B}[31m\(text)\u{1B}[0m" : text }
    func bold(_ text: String) -> String { enabled ? "\u{1B}[1m\(text)\u{1B}[0m" : text }
}
