import Foundation

/// navpolicyd(1) in roff, generated from the command declarations (`navpolicyd help --man`).
enum ManPage {
    static func render(_ declarations: [CommandDeclaration]) -> String {
        var lines = [
            #".TH NAVPOLICYD 1 "" "navpolicyd \#(CommandLineTool.version)" "User Commands""#,
            // No hyphenation and ragged right: option names and paths must stay copyable.
            ".nh",
            ".ad l",
            ".SH NAME",
            #"navpolicyd \- web-navigation policy decisions for hybrid apps"#,
            ".SH SYNOPSIS",
            ".B navpolicyd",
            ".I command",
            "[options] [operands]",
            ".br",
            #".B navpolicyd help \fR[\fIcommand\fR]"#,
            ".SH DESCRIPTION",
            "navpolicyd decides web navigations (allow or cancel, with a native action) from a JSON policy,",
            "as an HTTP daemon (serve) and as offline commands for policy authors.",
            "Results go to stdout; errors go to stderr.",
            ".SH COMMANDS",
        ]
        for declaration in declarations {
            lines.append(".SS " + quoted("navpolicyd " + declaration.name))
            lines.append(".B navpolicyd \(declaration.name)")
            lines.append(escape(HelpText.synopsis(declaration).joined(separator: " ")))
            lines.append(".PP")
            lines.append(escape(declaration.summary) + ".")
            lines += paragraphs(declaration.discussion)
            if let positional = declaration.positional {
                lines += [".TP", ".I " + escape(positional.name), escape(positional.help)]
            }
            for option in declaration.allOptions {
                lines.append(".TP")
                let short = option.shortName.map { #"\fB\-\#($0)\fR, "# } ?? ""
                let value = option.placeholder.map { #" \fI\#(escape($0))\fR"# } ?? ""
                lines.append(short + #"\fB\#(escape(option.longForm))\fR"# + value)
                lines.append(escape(HelpText.text(for: option)))
            }
            if !declaration.notes.isEmpty { lines += paragraphs(declaration.notes) }
        }
        lines += [
            ".SH EXIT STATUS",
            ".TP", ".B 0", "success: a decision was printed, the config is valid, all tests passed",
            ".TP", ".B 1", #"the command ran and the answer is "no": config errors, warnings with \-\-strict, failing tests"#,
            ".TP", ".B 2", "invalid input or usage: unknown option or command, invalid value, unreadable or invalid file",
            ".SH ENVIRONMENT",
            ".TP", ".B NAVPOLICY_CONFIG", #"policy file used when \-\-config is not given (an empty value is ignored)"#,
            ".TP", ".B NAVPOLICY_DATA_DIR", "serve: the data directory of the intake database (default var/navpolicyd)",
            ".TP", ".B NAVPOLICY_ADMIN_TOKEN", "serve: bearer token for the admin endpoints",
            ".TP", ".B NAVPOLICY_INTAKE_TOKEN", "serve: bearer token for the intake endpoints",
            ".TP", ".B NO_COLOR", "set: text output is never coloured",
            ".SH SEE ALSO",
            "docs/cli.md, docs/api.md and docs/operations.md in the navpolicyd sources.",
        ]
        return lines.joined(separator: "\n")
    }

    /// Lines that start with spaces are kept as they are (examples); the others are filled.
    private static func paragraphs(_ text: String) -> [String] {
        var lines: [String] = [".PP"]
        var inExample = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let isExample = line.hasPrefix(" ")
            if line.isEmpty {
                if inExample { lines += [".RE", ".fi"] }
                inExample = false
                lines.append(".PP")
                continue
            }
            if isExample, !inExample { lines += [".nf", ".RS 2"] }
            if !isExample, inExample { lines += [".RE", ".fi"] }
            inExample = isExample
            lines.append(escape(isExample ? String(line.drop(while: { $0 == " " })) : String(line)))
        }
        if inExample { lines += [".RE", ".fi"] }
        return lines
    }

    /// roff escapes: backslashes, minus signs, and control characters at the start of a line.
    static func escape(_ text: String) -> String {
        let escaped = text.replacingOccurrences(of: "\\", with: #"\e"#).replacingOccurrences(of: "-", with: #"\-"#)
        return escaped.hasPrefix(".") || escaped.hasPrefix("'") ? #"\&"# + escaped : escaped
    }

    private static func quoted(_ text: String) -> String { "\"" + escape(text) + "\"" }
}
