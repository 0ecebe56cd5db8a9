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
        case unreadable(path: String, reason: String)
        case invalid(path: String, ConfigError)
    }

    /// Reads the file's bytes.
    static func read(_ path: String) throws(LoadError) -> Data {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "no such file"
            throw .unreadable(path: path, reason: reason)
        }
    }

    /// Reads and compiles a policy.
    static func load(_ path: String) throws(LoadError) -> CompiledPolicy {
        let bytes = try read(path)
        do {
            return try ServerSettings.compiler.compile(bytes)
        } catch {
            throw .invalid(path: path, error)
        }
    }

    /// Prints a load error the way every command reports it.
    static func report(_ error: LoadError, to output: Output) {
        switch error {
        case .unreadable(let path, let reason):
            output.err("navpolicyd: config \(path): \(reason) (set --config or NAVPOLICY_CONFIG)")
        case .invalid(let path, let configError):
            output.err(
                "navpolicyd: config \(path) is invalid (\(configError.issues.count) error\(configError.issues.count == 1 ? "" : "s")):"
            )
            for issue in configError.issues { output.err("  \(issue)") }
        }
    }
}
