/// A command's help, generated from its declaration.
package enum HelpText {
    /// Lines are wrapped to this width.
    static let width = 100
    /// The option column is at most this wide; a longer option puts its help on the next line.
    static let maximumOptionColumn = 30

    /// The whole help of a command.
    package static func render(_ declaration: CommandDeclaration) -> String {
        var sections = [usage(declaration), declaration.discussion]
        if let positional = declaration.positional {
            sections.append("Arguments:\n" + table([(positional.name, positional.help)]))
        }
        sections.append("Options:\n" + table(declaration.allOptions.map { (label(for: $0), text(for: $0)) }))
        if !declaration.notes.isEmpty { sections.append(declaration.notes) }
        return sections.joined(separator: "\n\n")
    }

    /// `Usage: navpolicyd check [--config FILE] … [--] URL`, wrapped under the command name.
    package static func usage(_ declaration: CommandDeclaration) -> String {
        let prefix = "Usage: navpolicyd \(declaration.name) "
        return wrap(synopsis(declaration), width: width, firstPrefix: prefix, indent: prefix.count)
    }

    /// The synopsis elements: each option once (groups where their first member is), then the operand.
    package static func synopsis(_ declaration: CommandDeclaration) -> [String] {
        var elements: [String] = []
        var placedGroups: Set<Int> = []
        for option in declaration.options {
            if let groupIndex = declaration.exclusiveGroups.firstIndex(where: { $0.names.contains(option.name) }) {
                guard placedGroups.insert(groupIndex).inserted else { continue }
                let members = declaration.exclusiveGroups[groupIndex].names.compactMap { declaration.option(named: $0) }
                let joined = members.map(\.synopsis).joined(separator: " | ")
                elements.append(declaration.exclusiveGroups[groupIndex].isRequired ? "(\(joined))" : "[\(joined)]")
            } else {
                elements.append(option.isRequired ? option.synopsis : "[\(option.synopsis)]")
            }
        }
        if let positional = declaration.positional {
            elements += ["[--]", positional.synopsis]
        }
        return elements
    }

    /// `-h, --help` or `--config FILE`.
    static func label(for option: OptionDeclaration) -> String {
        (option.shortName.map { "-\($0), " } ?? "") + option.synopsis
    }

    /// The option's help with its default.
    static func text(for option: OptionDeclaration) -> String {
        option.help + (option.defaultValue.map { " (default: \($0))" } ?? "")
    }

    /// Two aligned columns, the right one wrapped with a hanging indent.
    static func table(_ rows: [(String, String)]) -> String {
        let column = min(maximumOptionColumn, (rows.map(\.0.count).max() ?? 0) + 2)
        var lines: [String] = []
        for (label, text) in rows {
            let indent = 2 + column
            if label.count + 2 > column {
                lines.append("  " + label)
                lines.append(wrap(words(text), width: width, firstPrefix: String(repeating: " ", count: indent), indent: indent))
            } else {
                let first = "  " + label.padding(toLength: column, withPad: " ", startingAt: 0)
                lines.append(wrap(words(text), width: width, firstPrefix: first, indent: indent))
            }
        }
        return lines.joined(separator: "\n")
    }

    static func words(_ text: String) -> [String] { text.split(separator: " ").map(String.init) }

    /// Fills lines up to `width`, starting with `firstPrefix`, continuing at `indent` spaces.
    static func wrap(_ words: [String], width: Int, firstPrefix: String, indent: Int) -> String {
        var lines: [String] = []
        var line = firstPrefix
        var lineHasWord = false
        for word in words {
            if lineHasWord, line.count + 1 + word.count > width {
                lines.append(line)
                line = String(repeating: " ", count: indent) + word
            } else {
                line += (lineHasWord ? " " : "") + word
            }
            lineHasWord = true
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }
}
