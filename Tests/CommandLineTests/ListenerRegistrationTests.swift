import NavigationPolicy
import Testing

@testable import NavpolicydCommands
@testable import PolicyService

/// What one registration gives a listener kind, shown with a kind that exists only here: an
/// `echo` listener with its own flag (`--echo-listen`) and its own config section (`echo`).
/// Everything below is derived from `ListenerKind.all + [echo]`; no other file names it.
@Suite("A listener kind's registration")
struct ListenerRegistrationTests {
    /// The throwaway kind's section: an address and one setting of its own.
    struct EchoSettings: SectionSettings {
        var listen: String?
        var greeting = "hello"

        static func decode(_ section: ConfigObject, diagnostics: inout ConfigDiagnostics) -> EchoSettings {
            section.checkKeys(allowed: ["listen", "greeting"], diagnostics: &diagnostics)
            var settings = EchoSettings()
            if let listen = section.string("listen", diagnostics: &diagnostics) {
                if case .failure(let error) = ListenAddress.parse(listen) {
                    diagnostics.report(section.pointer.appending("listen"), "\"\(listen)\": \(error.reason)")
                } else {
                    settings.listen = listen
                }
            }
            if let greeting = section.string("greeting", diagnostics: &diagnostics) { settings.greeting = greeting }
            return settings
        }

        static func from(_ policy: CompiledPolicy) -> EchoSettings {
            guard let section = policy.sections["echo"]?.objectValue else { return EchoSettings() }
            var diagnostics = ConfigDiagnostics()
            return decode(ConfigObject(section, at: .root.appending("echo")), diagnostics: &diagnostics)
        }
    }

    /// The kind, as its own file would declare it; it serves the API's routes (a test needs no
    /// responder of its own to show the wiring).
    static let echo = ListenerKind(
        role: "echo", flag: ListenFlag("echo-listen", help: "also answer echoes there (a test's listener)"),
        clashName: "echo listen", configured: { EchoSettings.from($0.policy).listen },
        sections: [
            DaemonSection(
                "echo", as: EchoSettings.self,
                restartWarning: DaemonSection.restartOnly("echo", event: "policy.echo_settings_changed"))
        ]
    ) { context in ListenerKind.api.make(context) }

    /// The registration with the throwaway kind: the one line a new kind adds.
    static let kinds = ListenerKind.all + [echo]

    @Test("its flag is a serve option: parsing, help, the man page and every completion script")
    func flag() {
        let serve = ServeCommand.declaring(
            listenFlags: Self.kinds.compactMap(\.flag), socketNames: Self.kinds.map(\.role))
        let option = serve.allOptions.first { $0.name == "echo-listen" }
        #expect(option?.placeholder == "HOST:PORT" && option?.kind == .address)
        #expect(HelpText.render(serve).contains("--echo-listen HOST:PORT"))
        #expect(HelpText.render(serve).contains("also answer echoes there"))
        #expect(CommandLineTool.manPage([serve]).contains(#"\fB\-\-echo\-listen\fR \fIHOST:PORT\fR"#))
        for shell in CompletionsCommand.Shell.allCases {
            #expect(CommandLineTool.completionScript(shell, [serve]).contains("echo-listen"), "\(shell)")
        }
        // systemd's socket names in the notes, beside the registered ones.
        #expect(HelpText.render(serve).contains("ext-authz-grpc, echo)"))
        // The binary's serve has exactly the registered kinds' flags, none of the test's.
        let registered = ServeCommand.declaration.allOptions.map(\.name)
        #expect(ListenerKind.all.compactMap(\.flag?.name).allSatisfy(registered.contains))
        #expect(!registered.contains("echo-listen"))
    }

    @Test("its section is accepted and validated with the chain, and refused without the kind")
    func section() throws {
        let compiler = ServerSettings.compilerAccepting(Self.kinds)
        let policy = try compiler.compile(Array(#"{"echo": {"greeting": "hi"}, "handlers": []}"#.utf8))
        #expect(EchoSettings.from(policy).greeting == "hi")
        let refused = issues(compiler, #"{"echo": {"listen": "nowhere", "x": 1}}"#)
        #expect(refused.count == 2)
        #expect(refused.first?.hasPrefix(#"/echo/x: unknown field "x""#) == true, "\(refused)")
        #expect(refused.last == #"/echo/listen: "nowhere": expected HOST:PORT"#)
        // The binary's compiler does not know the test's kind: its section is an unknown key.
        #expect(issues(ServerSettings.compiler, #"{"echo": {}}"#).first?.hasPrefix(#"/echo: unknown field "echo""#) == true)
        #expect(compiler.topLevelKeys == ServerSettings.compiler.topLevelKeys + ["echo"])
    }

    @Test("validate lists its effective settings after the daemon's own sections")
    func effectiveSettings() throws {
        let policy = try ServerSettings.compilerAccepting(Self.kinds).compile(Array(#"{"echo": {}}"#.utf8))
        let sections = EffectiveSettings.sections(policy, of: DaemonSection.all(for: Self.kinds))
        #expect(sections.map(\.name) == ["server", "intake", "decisionLog", "policySource", "proxy", "extAuthz", "echo"])
        let echo = try #require(sections.last?.fields)
        #expect(echo.map(\.0) == ["listen", "greeting"] && echo.map(\.1) == ["null", "hello"])
    }

    @Test("a reload that changes its section warns that it applies after a restart")
    func restartOnly() throws {
        let compiler = ServerSettings.compilerAccepting(Self.kinds)
        let initial = try compiler.compile(Array(#"{"echo": {"greeting": "hi"}}"#.utf8))
        let settings = RestartOnlySettings(policy: initial, sections: DaemonSection.all(for: Self.kinds))
        let changed = try compiler.compile(Array(#"{"echo": {"greeting": "bye"}}"#.utf8))
        #expect(settings.changes(inPolicy: changed).map(\.event) == ["policy.echo_settings_changed"])
        #expect(settings.changes(inPolicy: changed).first?.detail == "the echo section changed; it applies after a restart")
        #expect(settings.changes(inPolicy: initial).isEmpty)
        // A change to a section a reload applies (decisionLog) warns of nothing.
        let same = try compiler.compile(Array(#"{"echo": {"greeting": "hi"}, "decisionLog": {"maxBytes": 1048576}}"#.utf8))
        #expect(settings.changes(inPolicy: same).isEmpty)
    }

    @Test("its flag sets its address, checked for clashes with every other listener; systemd may pass its socket")
    func resolution() throws {
        let initial = try PolicySnapshot.build(from: Array(#"{"intake": {"enabled": false}}"#.utf8)).get()
        func inputs(_ flags: [String: String]) -> DaemonConfiguration.Inputs {
            DaemonConfiguration.Inputs(
                configPath: "unused.json", maxConfigBytes: 1 << 20, initial: initial, listenFlags: flags,
                decisionLogPath: nil, adminTokenFile: nil, version: "test", environment: [:])
        }
        let resolved = try DaemonConfiguration.resolveListeners(
            inputs(["--echo-listen": "127.0.0.1:0"]), kinds: Self.kinds, activation: nil
        ).get()
        #expect(resolved.map(\.kind.role) == ["api", "echo"])
        #expect(resolved.last?.endpoint.address == ListenAddress(host: "127.0.0.1", port: 0))
        // Not asked for: not run.
        #expect(try DaemonConfiguration.resolveListeners(inputs([:]), kinds: Self.kinds, activation: nil).get().count == 1)
        let clash = DaemonConfiguration.resolveListeners(
            inputs(["--echo-listen": "127.0.0.1:8080"]), kinds: Self.kinds, activation: nil)
        #expect(throws: DaemonConfiguration.ResolutionError.self) { try clash.get() }
        if case .failure(let error) = clash { #expect(error.description.hasPrefix("the echo listen address 127.0.0.1:8080")) }
        let bad = DaemonConfiguration.resolveListeners(
            inputs(["--echo-listen": "nowhere"]), kinds: Self.kinds, activation: nil)
        if case .failure(let error) = bad { #expect(error.description == "--echo-listen nowhere: expected HOST:PORT") }
        #expect(throws: DaemonConfiguration.ResolutionError.self) { try bad.get() }

        let passed = ["LISTEN_PID": "42", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "api:echo"]
        let activation = try SocketActivation.fromEnvironment(passed, pid: 42, names: Self.kinds.map(\.role)).get()
        #expect(activation?.socket(named: "echo") == 4)
        #expect(throws: SocketActivation.SetupError.self) { try SocketActivation.fromEnvironment(passed, pid: 42).get() }
    }

    private func issues(_ compiler: PolicyCompiler, _ json: String) -> [String] {
        do {
            _ = try compiler.compile(Array(json.utf8))
            return []
        } catch {
            return error.issues.map(\.description)
        }
    }
}
