import NavpolicydCommands
import TestScratchSupport
import Testing

/// The synopsis at the top of docs/cli.md is generated from the command declarations.
@Suite("Generated synopsis")
struct GeneratedSynopsisTests {
    @Test("docs/cli.md's synopsis is the one rendered from the declarations")
    func cliSynopsisIsGenerated() throws {
        let expected = "```\n" + CommandLineTool.synopsis(CommandLineTool.declarations) + "\n```"
        let mismatch = try GeneratedDocSection.mismatch("synopsis", in: "docs/cli.md", expected: expected)
        #expect(mismatch == nil, "\(mismatch ?? "")")
    }

    @Test("every command and every option is in the synopsis, lines within 100 columns")
    func everyOption() {
        let synopsis = CommandLineTool.synopsis(CommandLineTool.declarations)
        let lines = synopsis.split(separator: "\n")
        for declaration in CommandLineTool.declarations {
            let entry = "navpolicyd \(declaration.name)"
            #expect(lines.contains { $0 == entry || $0.hasPrefix(entry + " ") }, "\(declaration.name)")
            for option in declaration.options {
                #expect(synopsis.contains(option.synopsis), "\(declaration.name) \(option.longForm)")
            }
        }
        #expect(lines.allSatisfy { $0.count <= 100 && !$0.hasSuffix(" ") })
    }
}
