extension CommandLineTool {
    /// The synopsis of every command, one `navpolicyd NAME [options] OPERANDS` entry each,
    /// wrapped under the command name: the block at the top of docs/cli.md. Derived from the
    /// declarations like the help and the man page, so the page cannot lose an option or a
    /// command (`GeneratedSynopsisTests` compares it with the page).
    package static func synopsis(_ declarations: [CommandDeclaration]) -> String {
        let column = (declarations.map(\.name.count).max() ?? 0) + 1
        return declarations.map { declaration in
            let prefix = "navpolicyd " + declaration.name.padding(toLength: column, withPad: " ", startingAt: 0)
            var entry = HelpText.wrap(
                HelpText.synopsis(declaration), width: HelpText.width, firstPrefix: prefix, indent: prefix.count)
            // A command without options or operands (`version`) would end in the padding.
            while entry.last == " " { entry.removeLast() }
            return entry
        }
        .joined(separator: "\n")
    }
}
