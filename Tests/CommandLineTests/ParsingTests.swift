import NavigationPolicy
import NavpolicydCommands
import Testing

/// Command lines parsed and validated in-process against the declarations: no process starts.
@Suite("Command-line parsing")
struct ParsingTests {
    /// The usage or value error a command line fails with, or nil when it parses.
    private func parseFailure(_ arguments: [String]) -> CommandLineFailure? {
        if case .failure(let failure) = CommandLineTool.parse(arguments) { return failure }
        return nil
    }

    private func command<Command: ParsableCommand>(_ arguments: [String], as type: Command.Type) -> Command? {
        guard case .success(let parsed) = CommandLineTool.parse(arguments) else { return nil }
        return parsed as? Command
    }

    @Test("defaults come from the declarations; given values are typed")
    func defaultsAndTypes() throws {
        let check = try #require(command(["check", "https://a.example/"], as: CheckCommand.self))
        #expect(check.request.method == "GET")
        #expect(check.request.navigationType == .other)
        #expect(check.request.targetFrame == .main)
        #expect(check.format == .json, "check keeps printing JSON by default")
        #expect(check.configPath == nil)
        let diff = try #require(command(["diff", "--config", "n.json", "--urls", "u.txt"], as: DiffCommand.self))
        #expect(diff.examplesPerGroup == 3)
        #expect(diff.input == .urls("u.txt"))
        let bench = try #require(command(["bench", "--duration=0.5", "--iterations", "7"], as: BenchCommand.self))
        #expect(bench.duration == 0.5)
        #expect(bench.iterations == 7)
        let serve = try #require(command(["serve"], as: ServeCommand.self))
        #expect(serve.logLevel == .info)
        #expect(command(["serve", "--log-level", "error"], as: ServeCommand.self)?.logLevel == .error)
        let validate = try #require(command(["validate", "--strict"], as: ValidateCommand.self))
        #expect(validate.isStrict && validate.format == .text)
        let test = try #require(command(["test", "--coverage", "--fail-under", "99.5", "c.json"], as: TestCommand.self))
        #expect(test.failUnder == 99.5 && test.reportsCoverage && test.casesPath == "c.json")
    }

    @Test("-- ends the options: what follows is an operand even when it starts with -")
    func doubleDash() throws {
        let check = try #require(command(["check", "--explain", "--", "--not-a-flag"], as: CheckCommand.self))
        #expect(check.request.url == "--not-a-flag")
        #expect(check.explains)
        let canonicalize = try #require(command(["canonicalize", "--", "-x", "--help"], as: CanonicalizeCommand.self))
        #expect(canonicalize.inputs == ["-x", "--help"])
    }

    @Test(
        "malformed command lines are usage errors naming the flag or value",
        arguments: [
            (["check", "--bogus", "u"], "unknown option '--bogus'"),
            (["check", "--confg", "c.json", "u"], "unknown option '--confg'; did you mean '--config'?"),
            (["check", "-x", "u"], "unknown option '-x'"),
            (["check", "--config"], "option '--config' needs a value"),
            (["check", "--explain=1", "u"], "option '--explain' takes no value"),
            (["check", "--config", "a.json", "--config", "b.json", "u"], "option '--config' was given more than once"),
            (["check", "--explain", "--explain", "u"], "option '--explain' was given more than once"),
            (["check"], "missing the URL to check"),
            (["check", "a", "b"], "expected one URL, got 2"),
            (["serve", "--listen"], "option '--listen' needs a value"),
            (["serve", "extra"], "unexpected argument 'extra'"),
            (["serve", "--log-level", "loud"], "--log-level takes debug, info, warning or error, not 'loud'"),
            (["validate", "x.json"], "unexpected argument 'x.json' (use --config FILE)"),
            (["validate", "--format", "yaml"], "--format takes text or json, not 'yaml'"),
            (["bench", "--duration", "abc"], "--duration takes seconds between 0 and 3600, not 'abc'"),
            (["bench", "--duration", "0"], "--duration takes seconds between 0 and 3600, not '0'"),
            (["bench", "--iterations", "-1"], "--iterations takes a whole number, not '-1'"),
            (["diff", "--config", "n.json", "--examples", "x", "--log", "l"], "--examples takes a whole number from 0 to 100"),
            (["diff", "--log", "l"], "--config NEW.json is required (the candidate policy)"),
            (["diff", "--config", "n.json"], "give exactly one of --log, --urls or --cases"),
            (["diff", "--config", "n.json", "--log", "l", "--urls", "u"], "give exactly one of --log, --urls or --cases"),
            (["test"], "expected one CASES.json file"),
            (["test", "--vectors"], "expected one CASES.json file (with --vectors, the vector files)"),
            (
                ["test", "--coverage", "--fail-under", "101", "c.json"],
                "--fail-under takes a percentage from 0 to 100, not '101'"
            ),
            (["completions", "tcsh"], "SHELL takes bash, zsh or fish, not 'tcsh'"),
        ])
    func usageErrors(arguments: [String], message: String) throws {
        let failure = try #require(parseFailure(arguments))
        guard case .usage(let actual) = failure.error else {
            Issue.record("expected a usage error, got \(failure.error)")
            return
        }
        #expect(actual.hasPrefix(message), "\(actual)")
        #expect(failure.text.hasSuffix("Run 'navpolicyd \(arguments[0]) --help' for usage."))
    }

    @Test(
        "each command's validate() rejects what no single option declaration can",
        arguments: [
            (["test", "--fail-under", "50", "c.json"], CommandError.usage("--fail-under needs --coverage")),
            (
                ["test", "a.json", "b.json"],
                .usage("expected one CASES.json file, got 2; to run conformance vector files, add --vectors")
            ),
            (
                ["test", "--vectors", "--config", "c.json", "v.json"],
                .usage("--vectors: each vector file carries its policy bundle; drop --config and --bundle")
            ),
            (
                ["test", "--vectors", "--coverage", "v.json"],
                .usage("--coverage is for a table against one policy, not --vectors")
            ),
            (["canonicalize"], .usage("missing URL")),
            (["bundle", "--public-key"], .usage("--public-key needs --sign KEY: the key to print the public half of")),
            (
                ["bundle", "--public-key", "--sign", "k.pem", "--config", "c.json"],
                .usage("--public-key prints only the public key; drop --config and --output")
            ),
            (["bundle", "--output", ""], .invalidValue("--output: empty path")),
            (["canonicalize", "--ndjson", "u"], .usage("unexpected argument 'u' (--ndjson reads stdin)")),
            (["canonicalize", "--ndjson", "--format", "text"], .usage("--ndjson prints JSON lines; it takes no --format text")),
            (
                ["help", "chek"],
                .invalidValue(
                    "unknown command 'chek'; did you mean 'check'? (commands: serve, check, validate, test, diff, analyze, compile, bundle, canonicalize, urlpattern, bench, intake, completions, help, version)"
                )
            ),
            (
                ["check", "--navigation-type", "click", "u"],
                .invalidValue(
                    #"--navigation-type: unknown value "click"; expected one of "linkActivated", "formSubmitted", "backForward", "reload", "formResubmitted", "other""#
                )
            ),
            (
                ["check", "--target-frame", "top", "u"],
                .invalidValue(#"--target-frame: unknown value "top"; expected one of "main", "sub""#)
            ),
        ])
    func validateErrors(arguments: [String], expected: CommandError) throws {
        let failure = try #require(parseFailure(arguments))
        #expect(failure.error == expected)
    }

    @Test("value errors the core checks print alone, without the usage pointer")
    func valueErrorText() throws {
        let failure = try #require(parseFailure(["check", "--navigation-type", "click", "u"]))
        #expect(failure.text.hasPrefix("navpolicyd check: --navigation-type: unknown value \"click\""))
        #expect(!failure.text.contains("--help"))
    }

    @Test("unknown commands get did-you-mean; no command prints the overview")
    func topLevel() throws {
        let typo = try #require(parseFailure(["chek", "u"]))
        #expect(typo.command == nil)
        #expect(typo.text == "navpolicyd: unknown command 'chek'; did you mean 'check'? Run 'navpolicyd --help' for the list.")
        let unknown = try #require(parseFailure(["frobnicate"]))
        #expect(unknown.text == "navpolicyd: unknown command 'frobnicate'. Run 'navpolicyd --help' for the list.")
        #expect(try #require(parseFailure([])).text.hasPrefix("navpolicyd \(CommandLineTool.version) — "))
    }

    @Test("--version, -V and version are the same command; help wins anywhere before --")
    func versionAndHelp() throws {
        for arguments in [["--version"], ["-V"], ["version"]] {
            #expect(command(arguments, as: VersionCommand.self) != nil, "\(arguments)")
        }
        #expect(command(["check", "--bogus", "-h"], as: HelpCommand.self)?.topic == "check")
        #expect(command(["--help"], as: HelpCommand.self)?.topic == nil)
        #expect(command(["help", "--man"], as: HelpCommand.self)?.writesManPage == true)
        #expect(command(["check", "--", "--help"], as: CheckCommand.self)?.request.url == "--help")
    }

    @Test("edit distance and suggestions")
    func suggestions() {
        #expect(Suggestion.editDistance("kitten", "sitting") == 3)
        #expect(Suggestion.editDistance("", "abc") == 3)
        #expect(Suggestion.closest(to: "--fromat", in: ["--format", "--config"]) == "--format")
        #expect(Suggestion.closest(to: "zzz", in: ["check", "serve"]) == nil)
    }
}
