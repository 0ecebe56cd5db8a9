import NavigationPolicy
import Testing

/// The compiler is told the sections beside the chain (`ConfigSection`) and names none itself:
/// the daemon, an app and a WebAssembly build each accept exactly the sections they were given.
@Suite("Config sections the compiler is told")
struct ConfigSectionTests {
    /// A section whose validator refuses every key but `size`.
    static let sized = ConfigSection(name: "sized") { section, diagnostics in
        section.checkKeys(allowed: ["size"], diagnostics: &diagnostics)
        _ = section.integer("size", in: 1...9, diagnostics: &diagnostics)
    }

    private func issues(_ compiler: PolicyCompiler, _ json: String) -> [String] {
        compileIssues { () throws(ConfigError) in try compiler.compile(Array(json.utf8)) }
    }

    @Test("without sections only the chain's keys are accepted: no front end's section is known")
    func noSections() {
        #expect(PolicyCompiler().topLevelKeys == ["defaultDecision", "handlers"])
        for name in ["server", "intake", "proxy", "decisionLog", "extAuthz"] {
            #expect(issues(PolicyCompiler(), #"{"\#(name)": {}}"#).first?.hasPrefix(#"/\#(name): unknown field"#) == true)
        }
    }

    @Test("a told section is accepted, checked to be an object and validated in the same pass as the chain")
    func toldSections() throws {
        let compiler = PolicyCompiler(sections: [Self.sized, ConfigSection(name: "kept")])
        #expect(compiler.topLevelKeys == ["defaultDecision", "handlers", "sized", "kept"])
        #expect(issues(compiler, #"{"sized": {"size": 3}, "kept": {"anything": 1}}"#).isEmpty)
        #expect(
            issues(compiler, #"{"sized": {"size": 10, "x": 1}, "kept": 2, "handlers": [{"name": "a"}]}"#) == [
                #"/sized/x: unknown field "x"; expected one of "size""#,
                "/sized/size: 10 is out of range 1...9",
                "/kept: expected an object, got a number",
                "/handlers/0/type: required field is missing",
            ])
        #expect(issues(compiler, #"{"other": {}}"#).first?.hasPrefix("/other: unknown field") == true)
    }

    @Test("the compiled policy keeps the told sections as written, in the order they were told")
    func keptInToldOrder() throws {
        let compiler = PolicyCompiler(sections: [Self.sized, ConfigSection(name: "kept")])
        let policy = try compiler.compile(Array(#"{"kept": {"b": [1]}, "sized": {"size": 2}}"#.utf8))
        #expect(policy.sections.members.map(\.key) == ["sized", "kept"])
        #expect(policy.sections["kept"]?.objectValue?["b"] == .array([.number(1)]))
    }
}
