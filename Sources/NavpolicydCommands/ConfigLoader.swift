import Foundation
import NavigationPolicy
import PolicyService

/// Finds and compiles the policy file a command should use.
struct ConfigLoader {
    /// Used when neither `--config` nor `NAVPOLICY_CONFIG` is given.
    static let defaultPath = "config/navpolicy.json"

    /// `--config` wins over `NAVPOLICY_CONFIG`, which wins over the default.
    static func resolvePath(flag: String?, environment: [String: String] = ProcessInfo.processInfo.environment)
        -> String
    {
        if let flag { return flag }
        if let fromEnvironment = environment["NAVPOLICY_CONFIG"], !fromEnvironment.isEmpty { return fromEnvironment }
        return defaultPath
    }

    enum LoadError: Error {
        case unreadable(path: String, ConfigFile.ReadError)
        case invalid(path: String, ConfigError)
        /// A compiled image (`navpolicyd compile`) that is corrupt, truncated or of another version.
        case invalidImage(path: String, PolicyImageError)
    }

    /// The size cap: `--max-config-bytes`, else `NAVPOLICY_MAX_CONFIG_BYTES`, else 64 MiB.
    static func maxBytes(flag: String?, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(CommandError) -> Int
    {
        switch ConfigFile.maxBytes(flag: flag, environment: environment) {
        case .success(let limit): return limit
        case .failure(let error): throw .invalidValue(error.message)
        }
    }

    /// Reads the file's bytes, refusing files larger than `maxBytes` without reading them whole.
    static func read(_ path: String, maxBytes: Int) throws(LoadError) -> [UInt8] {
        do throws(ConfigFile.ReadError) {
            return try ConfigFile.read(path, maxBytes: maxBytes)
        } catch {
            throw .unreadable(path: path, error)
        }
    }

    /// What a command does with the policy it loads, which decides how a JSON config's large
    /// lists are stored (an image's are tables either way).
    enum Use {
        /// Decides requests (`check`, `test`, `bench`): large `hosts` and `pathPrefixes` lists
        /// become sorted tables, as in a compiled image, so a million entries load in a second
        /// (docs/performance.md); decisions and explain traces are the same.
        case deciding
        /// Reads every entry (`validate`'s lint, `analyze`, `diff`, `test --coverage`).
        case inspecting

        var compiler: PolicyCompiler {
            switch self {
            case .deciding: ServerSettings.decidingCompiler
            case .inspecting: ServerSettings.compiler
            }
        }
    }

    /// Reads and compiles a policy: a JSON config, or a compiled image (told by its magic).
    static func load(_ path: String, maxBytes: Int, for use: Use = .inspecting) throws(LoadError) -> CompiledPolicy {
        try loadDescribed(path, maxBytes: maxBytes, for: use).policy
    }

    /// ``load(_:maxBytes:for:)`` with the image's header when the file is an image (mapped, not read).
    static func loadDescribed(_ path: String, maxBytes: Int, for use: Use = .inspecting) throws(LoadError) -> (
        policy: CompiledPolicy, image: PolicyImage.Loaded?
    ) {
        if PolicyImageFile.isImage(atPath: path) {
            let image: PolicyImageBytes
            do throws(ConfigFile.ReadError) {
                image = try PolicyImageFile.map(path, maxBytes: maxBytes)
            } catch {
                throw .unreadable(path: path, error)
            }
            do {
                let loaded = try PolicyImageFile.load(image)
                return (loaded.policy, loaded)
            } catch {
                throw .invalidImage(path: path, error)
            }
        }
        let bytes = try read(path, maxBytes: maxBytes)
        let policy: CompiledPolicy
        do {
            policy = try use.compiler.compile(bytes)
        } catch {
            throw .invalid(path: path, error)
        }
        if use == .deciding { try refusePulledChain(policy, path: path) }
        return (policy, nil)
    }

    /// A config with `policySource` has no chain of its own (the daemon pulls it): deciding or
    /// publishing with it offline would answer every request with the empty chain's default, so
    /// the commands that do refuse it, naming the way to check the pulled chain instead.
    static func refusePulledChain(_ policy: CompiledPolicy, path: String) throws(LoadError) {
        guard policy.sections["policySource"] != nil else { return }
        let issue = ConfigIssue(
            pointer: .root.appending("policySource"),
            message:
                "this config pulls its chain from policySource.url and has none of its own to decide or publish with; check the pulled bundle with --bundle FILE"
        )
        throw .invalid(path: path, ConfigError(issues: [issue]))
    }

    /// `error` for a policy a flag names, as `navpolicyd COMMAND: SUBJECT: reason` (`subject`
    /// makes SUBJECT from the path, `hint` follows the reason): `analyze --config`/`--against`
    /// and `diff --against`. The general form's hint ("set --config or NAVPOLICY_CONFIG") sent
    /// a user whose `--against` file was missing to the wrong flag.
    static func report(
        _ error: LoadError, command: String, subject: (String) -> String, hint: String = "", to output: Output
    ) {
        let prefix = "navpolicyd \(command): "
        switch error {
        case .unreadable(let path, let reason):
            output.err("\(prefix)\(subject(path)): \(reason.reason)\(hint)")
        case .invalidImage(let path, let imageError):
            output.err("\(prefix)\(subject(path)): compiled policy image refused: \(imageError.reason)\(hint)")
        case .invalid(let path, let configError):
            let count = configError.issues.count
            output.err("\(prefix)\(subject(path)) is invalid (\(count) error\(count == 1 ? "" : "s"))\(hint):")
            // A config's keys and values are echoed in its issues: a hostile file must not reach the
            // terminal with escape sequences (attack round 7, F8).
            for issue in configError.issues { output.err("  " + TerminalText.escaped("\(issue)")) }
        }
    }

    /// Prints a load error the way every command reports it.
    static func report(_ error: LoadError, to output: Output) {
        switch error {
        case .unreadable(let path, .tooLarge(let limit)):
            output.err("navpolicyd: config \(path): \(ConfigFile.ReadError.tooLarge(limit: limit).reason)")
        case .unreadable(let path, let error):
            output.err("navpolicyd: config \(path): \(error.reason) (set --config or NAVPOLICY_CONFIG)")
        case .invalidImage(let path, let error):
            output.err("navpolicyd: config \(path): compiled policy image refused: \(error.reason)")
        case .invalid(let path, let configError):
            output.err(
                "navpolicyd: config \(path) is invalid (\(configError.issues.count) error\(configError.issues.count == 1 ? "" : "s")):"
            )
            // A config's keys and values are echoed in its issues: a hostile file must not reach the
            // terminal with escape sequences (attack round 7, F8).
            for issue in configError.issues { output.err("  " + TerminalText.escaped("\(issue)")) }
        }
    }
}
